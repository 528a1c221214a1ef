import {
  type Authenticate,
  type Connection,
  createGatehouse,
  MemoryAuditStore,
  MemoryReplayStore,
  type RateBucketStore,
  type ReplayStore,
  type ServerOptions,
  separateCommits,
} from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type TestPolicy, withGuards } from '../../../test/withGuards.js';

const connection: Connection = {
  connectionId: 'c1',
  tenantId: 't1',
  creatorId: 'alice',
  clientName: 'x',
  channel: 'mcp',
  rights: new Set(),
};
const broken = {
  take: () => Promise.reject(new Error('redis down')),
  refund: () => Promise.reject(new Error('redis down')),
};
const authenticate: Authenticate<'notes.write'> = async () => ({ ok: false, status: 401, reason: 'unused' });

interface StatusDesk {
  /** Runs inside `set_status` before it returns (hold it, move the clock). */
  during?: () => Promise<void> | void;
  /** Server options, with the policy written as `withGuards` reads it (`replay`, `rate`). */
  server?: Partial<ServerOptions<'notes.write', object>> & TestPolicy<'notes.write'>;
}

/** A server with one read and one write tool; `set_status` counts its runs, audit rows are kept. */
function statusDesk(options: StatusDesk = {}) {
  let runs = 0;
  const audit = new MemoryAuditStore();
  const gh = createGatehouse({ rights: ['notes.write'] as const, services: () => ({}) });
  const tools = [
    gh.defineTool({
      name: 'find_notes',
      description: 'Lists the notes.',
      effect: 'read',
      input: z.object({}),
      presenter: { outputSchema: { type: 'object' }, present: () => ({}) },
      run: () => {
        runs++;
        return {};
      },
    }),
    gh.defineTool({
      name: 'set_status',
      description: 'Sets the status of the note.',
      effect: 'write',
      input: z.object({ status: z.string() }),
      presenter: {
        outputSchema: { type: 'object', properties: { id: { type: 'string' }, run: { type: 'integer' } } },
        present: (value: { id: string; run: number }) => value,
      },
      run: async () => {
        const run = ++runs;
        await options.during?.();
        return { id: 'n1', run };
      },
    }),
  ];
  const server = gh.createServer(
    withGuards({
      name: 'notes',
      version: '1',
      tools,
      authenticate,
      audit,
      replay: { store: new MemoryReplayStore() },
      unitOfWork: separateCommits(),
      ...options.server,
    }),
  );
  const call = (tool: string, args: Record<string, unknown>) =>
    server.callTool(connection as Connection<'notes.write'>, tool, args);
  return { server, audit, call, runs: () => runs };
}

describe('rateGuard', () => {
  it('refuses bad limits and unknown effect classes at configuration time', () => {
    expect(() =>
      statusDesk({ server: { rate: { store: broken, fallback: { capacity: 0, refillPerSecond: 1 } } } }),
    ).toThrow(/^rateGuard: limit fallback needs capacity/);
    expect(() =>
      statusDesk({
        server: { rate: { store: broken, limits: { email: { capacity: 1, refillPerSecond: 1 } } as never } },
      }),
    ).toThrow(/^rateGuard: limit for unknown effect class email/);
    expect(() => statusDesk({ server: { rate: { store: { take: broken.take } as never } } })).toThrow(
      /^rateGuard: store must be a RateBucketStore/,
    );
  });

  it('fails closed when its store fails: store_unavailable, nothing runs, no audit row', async () => {
    const desk = statusDesk({ server: { rate: { store: broken as RateBucketStore } } });
    for (const [tool, args] of [
      ['find_notes', {}],
      ['set_status', { status: 'A' }],
    ] as const) {
      expect((await desk.call(tool, args)).structuredContent).toMatchObject({
        error: { code: 'store_unavailable' },
      });
    }
    expect(desk.runs()).toBe(0);
    expect(desk.audit.rows).toEqual([]);
  });
});

describe('replayGuard (I10)', () => {
  it('replays a call that outlived its lease, even after the expired claim was swept', async () => {
    let now = 0;
    const store = new MemoryReplayStore();
    const desk = statusDesk({
      server: { replay: { store, leaseMs: 10 }, clock: () => new Date(now) },
      during: async () => {
        now = 1_000; // the call outlives its 10 ms lease; another key's claim sweeps the expired one
        await store.begin('another', 'x', 10, now);
      },
    });
    const first = await desk.call('set_status', { status: 'A' });
    expect(first.structuredContent).toEqual({ status: 'ok', result: { id: 'n1', run: 1 } });
    const again = await desk.call('set_status', { status: 'A' });
    expect(again.structuredContent).toMatchObject({ replayed: true, result: { id: 'n1', run: 1 } });
    expect(desk.runs()).toBe(1);
    expect(desk.audit.rows).toHaveLength(1);
  });

  it('answers an identical call still in flight with still_running at once, then replays its result', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const desk = statusDesk({ during: () => held });
    const first = desk.call('set_status', { status: 'A' });
    const started = Date.now();
    const second = await desk.call('set_status', { status: 'A' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(second.structuredContent).toMatchObject({
      error: { code: 'still_running', details: { retry_after_seconds: 2 } },
    });
    release();
    expect((await first).structuredContent).toEqual({ status: 'ok', result: { id: 'n1', run: 1 } });
    expect((await desk.call('set_status', { status: 'A' })).structuredContent).toMatchObject({
      replayed: true,
    });
    expect(desk.runs()).toBe(1);
    expect(desk.audit.rows).toHaveLength(1);
  });

  it('keeps a result without an idempotency key for minutes, so a deliberate repeat runs again', async () => {
    let now = 0;
    const desk = statusDesk({ server: { clock: () => new Date(now) } });
    await desk.call('set_status', { status: 'A' });
    now = 5 * 60_000 - 1;
    expect((await desk.call('set_status', { status: 'A' })).structuredContent).toMatchObject({
      replayed: true,
    });
    now = 5 * 60_000;
    expect((await desk.call('set_status', { status: 'A' })).structuredContent).toEqual({
      status: 'ok',
      result: { id: 'n1', run: 2 },
    });
    expect(desk.runs()).toBe(2);
    expect(desk.audit.rows).toHaveLength(2);
  });

  it('keeps a result with an idempotency key for 24 hours, and both windows are configurable', async () => {
    let now = 0;
    const desk = statusDesk({ server: { clock: () => new Date(now) } });
    const keyed = { status: 'A', idempotency_key: 'order-000123' };
    await desk.call('set_status', keyed);
    now = 24 * 3_600_000 - 1;
    expect((await desk.call('set_status', keyed)).structuredContent).toMatchObject({ replayed: true });
    now = 24 * 3_600_000;
    expect((await desk.call('set_status', keyed)).structuredContent).toEqual({
      status: 'ok',
      result: { id: 'n1', run: 2 },
    });
    expect(desk.runs()).toBe(2);
    expect(desk.audit.rows).toHaveLength(2);
    const store = new MemoryReplayStore();
    expect(() => statusDesk({ server: { replay: { store, windowMs: 0 } } })).toThrow(
      /^replayGuard: windowMs must be a positive number/,
    );
    expect(() => statusDesk({ server: { replay: { store, keyedWindowMs: -1 } } })).toThrow(
      /^replayGuard: keyedWindowMs must be a positive number/,
    );
    expect(() => statusDesk({ server: { replay: { store, waitMs: -1 } } })).toThrow(
      /^replayGuard: waitMs must be a non-negative number/,
    );
    expect(() => statusDesk({ server: { replay: { store: {} as ReplayStore } } })).toThrow(
      /^replayGuard: store must be a ReplayStore/,
    );
  });

  it('fails closed when its store fails: store_unavailable, nothing runs, no audit row', async () => {
    const store: ReplayStore = {
      begin: () => Promise.reject(new Error('db down')),
      complete: () => Promise.reject(new Error('db down')),
      release: () => Promise.reject(new Error('db down')),
      holds: () => Promise.reject(new Error('db down')),
      renew: () => Promise.reject(new Error('db down')),
    };
    const desk = statusDesk({ server: { replay: { store } } });
    expect((await desk.call('set_status', { status: 'A' })).structuredContent).toMatchObject({
      error: { code: 'store_unavailable' },
    });
    expect(desk.runs()).toBe(0);
    expect(desk.audit.rows).toEqual([]);
  });
});
