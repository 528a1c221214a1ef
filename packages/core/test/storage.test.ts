import { describe, expect, it } from 'vitest';
import {
  MemoryAuditStore,
  MemoryCredentialStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  type PendingAction,
} from '../src/index.js';

describe('MemoryReplayStore', () => {
  it('lets exactly one of 1,000 concurrent callers start a key', async () => {
    const store = new MemoryReplayStore();
    const answers = await Promise.all(Array.from({ length: 1000 }, () => store.begin('k', 'd', 5_000, 0)));
    expect(answers.filter((a) => a.state === 'started')).toHaveLength(1);
    expect(answers.filter((a) => a.state === 'running')).toHaveLength(999);
  });

  it('returns the completed result inside the window and forgets it after', async () => {
    const store = new MemoryReplayStore();
    await store.begin('k', 'digest-1', 1_000, 0);
    await store.complete('k', { id: 'b1' }, 60_000, 10);
    expect(await store.begin('k', 'digest-2', 1_000, 50_000)).toEqual({
      state: 'completed',
      argumentsDigest: 'digest-1',
      result: { id: 'b1' },
    });
    expect(await store.begin('k', 'digest-2', 1_000, 60_011)).toEqual({ state: 'started' });
  });

  it('frees a key on release and after an abandoned lease', async () => {
    const store = new MemoryReplayStore();
    await store.begin('k', 'd', 1_000, 0);
    await store.release('k');
    expect((await store.begin('k', 'd', 1_000, 1)).state).toBe('started');
    expect((await store.begin('k', 'd', 1_000, 500)).state).toBe('running');
    expect((await store.begin('k', 'd', 1_000, 1_002)).state).toBe('started');
  });

  it('keeps memory bounded: expired records are swept as new ones arrive', async () => {
    const store = new MemoryReplayStore();
    for (let i = 0; i < 20_000; i++) {
      await store.begin(`k${i}`, 'd', 10, i);
      await store.complete(`k${i}`, { i }, 100, i);
    }
    expect(store.size).toBeLessThan(300);
  });
});

const action = (overrides: Partial<PendingAction> = {}): PendingAction => ({
  id: 'pa1',
  tokenHash: 'h1',
  connectionId: 'c1',
  tenantId: 't1',
  tool: 'notify_customer',
  arguments: { booking_id: 'b1' },
  argumentsDigest: 'ad',
  contentHash: 'ch',
  summary: 'Mail Ada about booking b1',
  createdAt: 0,
  expiresAt: 1_000,
  status: 'pending',
  ...overrides,
});

describe('MemoryPendingActionStore', () => {
  it('claims an action for exactly one of 500 concurrent confirmations', async () => {
    const store = new MemoryPendingActionStore();
    await store.insert(action());
    const claims = await Promise.all(
      Array.from({ length: 500 }, () => store.transition('pa1', ['pending', 'approved'], 'claimed')),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await store.findByTokenHash('h1'))?.status).toBe('claimed');
  });

  it('refuses a second action with the same token hash and purges expired ones', async () => {
    const store = new MemoryPendingActionStore();
    await store.insert(action());
    await expect(store.insert(action({ id: 'pa2' }))).rejects.toThrow(/exists/);
    await store.insert(action({ id: 'pa3', tokenHash: 'h3', expiresAt: 5_000 }));
    expect(await store.purge(2_000)).toBe(1);
    expect(await store.findByTokenHash('h1')).toBeUndefined();
    expect(await store.findByTokenHash('h3')).toBeDefined();
  });
});

describe('MemoryAuditStore', () => {
  it('lists rows newest first, filtered by tenant and connection, paginated by id', async () => {
    const store = new MemoryAuditStore();
    const row = (id: string, connectionId: string, tenantId = 't1') => ({
      id,
      at: 0,
      channel: 'mcp',
      tenantId,
      connectionId,
      clientName: 'c',
      actorId: 'p1',
      action: 'add_note',
      outcome: 'ok' as const,
      objectIds: [id],
      note: null,
    });
    for (const r of [row('01A', 'c1'), row('01B', 'c2'), row('01C', 'c1'), row('01D', 'c1', 't2')])
      await store.append(r);
    expect((await store.list({ tenantId: 't1', connectionId: 'c1', limit: 10 })).map((r) => r.id)).toEqual([
      '01C',
      '01A',
    ]);
    expect((await store.list({ tenantId: 't1', limit: 1, before: '01C' })).map((r) => r.id)).toEqual(['01B']);
  });
});

describe('MemoryRateBucketStore', () => {
  it('allows the capacity at once, refuses the next with a retry hint, and refills over time', async () => {
    const store = new MemoryRateBucketStore();
    const limit = { capacity: 3, refillPerSecond: 1 };
    const first = await Promise.all([0, 0, 0, 0].map(() => store.take('c1:write', limit, 0)));
    expect(first.map((r) => r.ok)).toEqual([true, true, true, false]);
    expect(first[3]).toEqual({ ok: false, retryAfterMs: 1000 });
    expect((await store.take('c1:write', limit, 1_000)).ok).toBe(true);
    expect((await store.take('c1:read', limit, 1_000)).ok).toBe(true);
  });
});

describe('MemorySwitchStore', () => {
  it('returns the previous value on set, for before/after audit', async () => {
    const store = new MemorySwitchStore();
    expect(await store.set('global', true)).toBeUndefined();
    expect(await store.set('global', false)).toBe(true);
    expect(await store.get('global')).toBe(false);
  });
});

describe('MemoryCredentialStore', () => {
  it('finds by hash, revokes once, and refuses duplicates', async () => {
    const store = new MemoryCredentialStore();
    const record = {
      id: 'cr1',
      tokenHash: 'h',
      tenantIds: ['t1'],
      creatorId: 'p1',
      rights: ['notes.read'],
      clientLabel: 'cli',
      createdAt: 0,
      expiresAt: null,
      revokedAt: null,
    };
    await store.insert(record);
    await expect(store.insert(record)).rejects.toThrow(/exists/);
    expect(await store.revoke('cr1', 5)).toBe(true);
    expect(await store.revoke('cr1', 6)).toBe(false);
    expect((await store.findByTokenHash('h'))?.revokedAt).toBe(5);
  });
});

describe('MemoryReplayStore.release', () => {
  it('never erases a completed result, so a late release cannot let the write run again', async () => {
    const store = new MemoryReplayStore();
    await store.begin('k', 'd', 1_000, 0);
    await store.complete('k', { id: 'b1' }, 60_000, 1);
    await store.release('k');
    expect(await store.begin('k', 'd', 1_000, 2)).toMatchObject({ state: 'completed', result: { id: 'b1' } });
  });
});
