/**
 * The booking server's tool surface, locked: every toolset's tools, effects,
 * annotations and the hashes of their descriptions and schemas must match the
 * committed mcp-surface.lock.json. A changed description or schema fails here
 * until the lockfile is updated (GATEHOUSE_SURFACE_UPDATE=1) and reviewed.
 */
import { servedSurface, serverSurface } from '@gatehousejs/testing';
import { describeSurfaceLock } from '@gatehousejs/testing/vitest';
import { describe, expect, it } from 'vitest';
import { testApp } from './fixtures/testApp.js';

// #region surface-lock
describeSurfaceLock({
  lockfile: new URL('./mcp-surface.lock.json', import.meta.url),
  surface: async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const tokens = { full: await t.mint(), compact: await t.mint({ toolset: 'compact' }) };
    return await servedSurface({ endpoint: mcpUrl, tokens }); // await before the app closes
  },
});
// #endregion surface-lock

describe('serverSurface', () => {
  it('lists in-process the same surface the endpoint serves', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const tokens = { full: await t.mint(), compact: await t.mint({ toolset: 'compact' }) };
    const served = await servedSurface({ endpoint: mcpUrl, tokens });
    expect(Object.keys(served.toolsets.compact ?? {})).toHaveLength(7);
    expect(await serverSurface(t.app.mcp, tokens)).toEqual(served);
  });
});
