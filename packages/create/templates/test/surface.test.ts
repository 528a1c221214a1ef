import { serverSurface } from '@gatehousejs/testing';
import { describeSurfaceLock } from '@gatehousejs/testing/vitest';
import { startHost } from './host.js';

/**
 * The tool surface, locked: descriptions, schemas and hints must match the
 * committed mcp-surface.lock.json. After a deliberate change, review and
 * update it: GATEHOUSE_SURFACE_UPDATE=1 npx vitest run test/surface.test.ts
 */
describeSurfaceLock({
  lockfile: new URL('./mcp-surface.lock.json', import.meta.url),
  surface: async () => {
    const host = await startHost();
    try {
      return await serverSurface(host.app.server, { full: await host.mint(host.home) });
    } finally {
      await host.close();
    }
  },
});
