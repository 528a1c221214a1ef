// A refused or failed write releases its replay claim so the corrected call
// (or the same one, retried) runs (I10). When the store cannot take the
// release at that moment (a busy SQLite file, a database blip), the claim
// used to stay until its lease ran out (60 s by default): every retry of the
// call answered still_running meanwhile. The release is now tried again in
// the background, fenced like any release.

import { setTimeout as sleep } from 'node:timers/promises';
import { RELEASE_RETRY_MS } from '@gatehousejs/guards';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  createGatehouse,
  MemoryAuditStore,
  MemoryReplayStore,
  type ReplayStore,
  separateCommits,
  ToolError,
} from '../src/index.js';
import { connectionWith, listPresenter } from './fixtures.js';

/**
 * A memory replay store whose next `failures` releases fail, as a busy
 * database does: by rejecting, or (`synchronous`) by throwing before any
 * promise exists, as a store on a closed handle may; `holds` then throws too.
 */
function flakyReleases(failures: number, synchronous = false) {
  const store = new MemoryReplayStore();
  const attempts: number[] = [];
  let left = failures;
  const busy = () => new Error('SQLITE_BUSY: database is locked');
  const flaky: ReplayStore = {
    begin: (...args) => store.begin(...args),
    complete: (...args) => store.complete(...args),
    renew: (...args) => store.renew(...args),
    holds: (...args) => {
      if (synchronous) throw busy();
      return store.holds(...args);
    },
    release(...args) {
      attempts.push(Date.now());
      if (left-- > 0) {
        if (synchronous) throw busy();
        return Promise.reject(busy());
      }
      return store.release(...args);
    },
  };
  return { flaky, attempts };
}

function statusDesk(replay: ReplayStore, leaseMs = 60_000) {
  const runs: string[] = [];
  let refuse = true;
  const gh = createGatehouse({
    rights: ['status.write'] as const,
    services: () => ({
      set(status: string) {
        runs.push(status);
        if (refuse) throw new ToolError({ code: 'conflict', message: 'Not now.', fix: 'Retry.' });
        return { status };
      },
    }),
  });
  const setStatus = gh.defineTool({
    name: 'set_status',
    description: 'Sets the status.',
    effect: 'write',
    requires: ['status.write'],
    input: z.object({ status: z.string() }),
    presenter: listPresenter<{ status: string }>(['status']),
    run: ({ input, services }) => services.set(input.status),
  });
  const server = gh.createServer(
    withGuards({
      name: 'status',
      version: '1.0.0',
      tools: [setStatus],
      authenticate: async () => ({ ok: false, status: 401, reason: 'not used' }),
      audit: new MemoryAuditStore(),
      replay: { store: replay, leaseMs },
      unitOfWork: separateCommits(),
    }),
  );
  const connection = connectionWith(['status.write'] as const);
  return {
    runs,
    accept: () => {
      refuse = false;
    },
    call: async () =>
      (await server.callTool(connection, 'set_status', { status: 'A' })).structuredContent as {
        error?: { code: string };
        replayed?: boolean;
      },
  };
}

describe('a release the replay store refuses', () => {
  it('is tried again in the background, so the retry runs long before the lease ends', async () => {
    const { flaky, attempts } = flakyReleases(2);
    const desk = statusDesk(flaky);
    expect((await desk.call()).error?.code).toBe('conflict');
    expect(attempts).toHaveLength(1);
    // the claim is still held: an identical call now is told to wait
    expect((await desk.call()).error?.code).toBe('still_running');
    await sleep(RELEASE_RETRY_MS[0]! + RELEASE_RETRY_MS[1]! + 150);
    expect(attempts).toHaveLength(3); // the first release, then two retries; the second retry took
    desk.accept();
    const retried = await desk.call();
    expect(retried.error).toBeUndefined();
    expect(retried.replayed).toBeUndefined();
    expect(desk.runs).toEqual(['A', 'A']);
  });

  it('is retried the same when the store throws instead of rejecting, and the call keeps its answer', async () => {
    const { flaky, attempts } = flakyReleases(1, true);
    const desk = statusDesk(flaky);
    expect((await desk.call()).error?.code).toBe('conflict');
    await sleep(RELEASE_RETRY_MS[0]! + 100);
    expect(attempts).toHaveLength(2);
    desk.accept();
    expect((await desk.call()).error).toBeUndefined();
    expect(desk.runs).toEqual(['A', 'A']);
  });

  it('leaves the key to the lease while every retry fails', async () => {
    const { flaky, attempts } = flakyReleases(Number.POSITIVE_INFINITY);
    const desk = statusDesk(flaky, 100);
    expect((await desk.call()).error?.code).toBe('conflict');
    await sleep(RELEASE_RETRY_MS[0]! + 150);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    // the lease (100 ms) has run out: the key is free although no release took
    desk.accept();
    expect((await desk.call()).error).toBeUndefined();
    expect(desk.runs).toEqual(['A', 'A']);
  });
});
