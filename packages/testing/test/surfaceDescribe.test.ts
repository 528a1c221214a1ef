import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGatehouse, type GatehouseServer } from '@gatehousejs/core';
import { assertSurfaceLock, checkSurfaceLock, parseSurfaceLock, serverSurface } from '@gatehousejs/testing';
import { describeSurfaceLock } from '@gatehousejs/testing/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';

/** A one-tool server whose single token lists everything. */
function pingServer(): GatehouseServer<'ping'> {
  const gh = createGatehouse({ rights: ['ping'] as const, services: () => ({}) });
  const ping = gh.defineTool({
    name: 'ping',
    description: 'Answers pong.',
    effect: 'read',
    requires: ['ping'],
    input: z.object({}),
    presenter: { outputSchema: { type: 'object' }, present: () => ({ pong: true }) },
    run: () => null,
  });
  return gh.createServer(
    withGuards({
      name: 'ping',
      version: '1.0.0',
      tools: [ping],
      authenticate: async ({ token }) =>
        token === 'ping-token'
          ? {
              ok: true,
              connection: {
                connectionId: 'c1',
                tenantId: 't1',
                creatorId: 'p1',
                clientName: 'surface test',
                channel: 'mcp',
                rights: new Set(['ping'] as const),
              },
            }
          : { ok: false, status: 401, reason: 'Unknown token.' },
    }),
  );
}

const dir = mkdtempSync(join(tmpdir(), 'surface-describe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lockfile = join(dir, 'mcp-surface.lock.json');

describe('assertSurfaceLock without a test framework', () => {
  it('holds a server to the lockfile written on request', async () => {
    const server = pingServer();
    const fullToken = 'ping-token';
    const first = await checkSurfaceLock(await serverSurface(server, { full: fullToken }), {
      lockfile,
      update: true,
      ci: false,
    });
    expect(first.status).toBe('written');
    // #region framework-free
    const surface = await serverSurface(server, { full: fullToken });
    await assertSurfaceLock(surface, { lockfile }); // throws a SurfaceLockError with the diff
    // #endregion framework-free
    expect(Object.keys(parseSurfaceLock(readFileSync(lockfile, 'utf8')).toolsets.full ?? {})).toEqual([
      'ping',
    ]);
  });
});

// Registered after the case above wrote the lockfile: vitest runs cases in order.
describeSurfaceLock({
  name: 'ping server',
  lockfile,
  ci: true,
  surface: () => serverSurface(pingServer(), { full: 'ping-token' }),
});
