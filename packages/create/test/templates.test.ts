import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ContractHost, checkSurfaceLock, serverSurface } from '@gatehousejs/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject } from '../src/createProject.js';

/** The repository's installed packages, which a written project's imports find through a link. */
const NODE_MODULES = fileURLToPath(new URL('../../../node_modules', import.meta.url));

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'create-templates-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

/** The host module of a written project, as its own tests start it. */
type HostModule = {
  startHost(): Promise<
    ContractHost & { readonly app: { readonly server: Parameters<typeof serverSurface>[0] } }
  >;
};

describe('the templates', () => {
  it.each([false, true])('serve the surface the written lockfile records (console: %s)', async (console) => {
    const directory = join(cwd, 'desk');
    createProject({ directory, name: 'desk', store: 'memory', console });
    symlinkSync(NODE_MODULES, join(directory, 'node_modules'), 'dir');
    const { startHost } = (await import(pathToFileURL(join(directory, 'test/host.ts')).href)) as HostModule;
    const host = await startHost();
    try {
      const surface = await serverSurface(host.app.server, { full: await host.mint(host.home) });
      const lockfile = pathToFileURL(join(directory, 'test/mcp-surface.lock.json'));
      const report = await checkSurfaceLock(surface, { lockfile, ci: true });
      expect(report.status, report.message).toBe('match');
      expect(Object.keys(surface.toolsets.full ?? {}).includes('delete_ticket')).toBe(console);
    } finally {
      await host.close();
    }
  });
});
