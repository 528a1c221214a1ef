import { ConfigurationError, type JsonObject, type ReplayBegin } from '@gatehousejs/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  createSqliteStores,
  migrateGatehouseSchema,
  SqlitePendingActionStore,
  SqliteRateBucketStore,
  SqliteReplayStore,
} from '../src/index.js';
import { credential, pendingAction } from './fixtures/records.js';
import { tempDatabase } from './fixtures/tempDatabase.js';
import { deferred, pause, tracked } from './fixtures/timing.js';

const memoryDb = (): Database.Database => {
  const db = new Database(':memory:');
  migrateGatehouseSchema(db);
  return db;
};

const count = (db: Database.Database, table: string): number =>
  db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;

const action = (id: string, expiresAt: number, createdAt = 0) => pendingAction(id, { expiresAt, createdAt });

/** The fence of a claim the test just started. */
const fenceOf = (begin: ReplayBegin): string => {
  if (begin.state !== 'started') throw new Error(`expected to start the key, found it ${begin.state}`);
  return begin.fence;
};

describe('SqliteReplayStore', () => {
  it('keeps a completed result when a late release arrives', async () => {
    const store = new SqliteReplayStore(memoryDb());
    const fence = fenceOf(await store.begin('k', 'd', 1_000, 0));
    expect(await store.complete('k', fence, 'd', { id: 'b1' }, 60_000, 1)).toBe(true);
    await store.release('k', fence);
    expect(await store.begin('k', 'd', 1_000, 2)).toMatchObject({ state: 'completed', result: { id: 'b1' } });
  });

  it('completes and releases only the claim that holds the fence, after a takeover too', () => {
    const db = memoryDb();
    const replay = new SqliteReplayStore(db);
    const first = fenceOf(replay.beginSync('k', 'd', 1_000, 0));
    expect(replay.beginSync('k', 'd', 1_000, 999)).toEqual({ state: 'running', argumentsDigest: 'd' });
    const second = fenceOf(replay.beginSync('k', 'd', 1_000, 1_000));
    expect(second).not.toBe(first);
    expect(replay.completeSync('k', first, 'd', { by: 'first' }, 60_000, 1_500)).toBe(false);
    replay.releaseSync('k', first);
    expect(replay.beginSync('k', 'd', 1_000, 1_500)).toEqual({ state: 'running', argumentsDigest: 'd' });
    expect(replay.completeSync('k', second, 'd', { by: 'second' }, 60_000, 1_600)).toBe(true);
    expect(replay.completeSync('k', second, 'd', { by: 'again' }, 60_000, 1_700)).toBe(false);
    expect(replay.beginSync('k', 'd', 1_000, 1_800)).toMatchObject({
      state: 'completed',
      result: { by: 'second' },
    });
  });

  it('completes a claim whose lease ran out while nobody took it over', () => {
    const replay = new SqliteReplayStore(memoryDb());
    const fence = fenceOf(replay.beginSync('k', 'd', 1_000, 0));
    expect(replay.completeSync('k', fence, 'd', { id: 'b1' }, 60_000, 5_000)).toBe(true);
    expect(replay.beginSync('k', 'd', 1_000, 5_001)).toMatchObject({
      state: 'completed',
      result: { id: 'b1' },
    });
  });

  it('commits the replay record with the host’s write in one transaction, or neither', () => {
    const db = memoryDb();
    db.exec('CREATE TABLE bookings (id TEXT PRIMARY KEY)');
    const replay = new SqliteReplayStore(db);
    const insert = db.prepare<[string]>('INSERT INTO bookings (id) VALUES (?)');
    const write = db.transaction((id: string, fence: string, fail: boolean) => {
      insert.run(id);
      expect(replay.completeSync(`fp-${id}`, fence, 'd', { id }, 60_000, 0)).toBe(true);
      if (fail) throw new Error('the service refused after writing');
    });
    const fence = fenceOf(replay.beginSync('fp-b1', 'd', 5_000, 0));
    expect(() => write.immediate('b1', fence, true)).toThrow(/refused/);
    expect(count(db, 'bookings')).toBe(0);
    expect(replay.beginSync('fp-b1', 'd', 5_000, 1).state).toBe('running');
    replay.releaseSync('fp-b1', fence);
    const retry = fenceOf(replay.beginSync('fp-b1', 'd', 5_000, 2));
    write.immediate('b1', retry, false);
    expect(count(db, 'bookings')).toBe(1);
    expect(replay.beginSync('fp-b1', 'd', 5_000, 3)).toMatchObject({
      state: 'completed',
      result: { id: 'b1' },
    });
  });

  it('makes expired records invisible at once, never deletes one on a request, and purges them on request', () => {
    const db = memoryDb();
    const replay = new SqliteReplayStore(db);
    const record = (key: string, result: JsonObject, windowMs: number) =>
      replay.completeSync(key, fenceOf(replay.beginSync(key, 'd', 10, 0)), 'd', result, windowMs, 0);
    for (let i = 0; i < 10; i++) record(`k${i}`, { i }, 100);
    record('live', { i: -1 }, 1_000);
    expect(replay.purgeExpired(99)).toBe(0);
    expect(replay.beginSync('k3', 'd', 10, 100).state).toBe('started'); // the expired row, taken over
    expect(count(db, 'gatehouse_replay')).toBe(11);
    expect(replay.purgeExpired(200)).toBe(10);
    expect(count(db, 'gatehouse_replay')).toBe(1);
  });

  it('renews in the row only the live lease of the claim holding the fence', () => {
    const db = memoryDb();
    const replay = new SqliteReplayStore(db);
    const expiry = (key: string) =>
      db
        .prepare<[string], { e: number }>('SELECT expires_at AS e FROM gatehouse_replay WHERE key = ?')
        .get(key)?.e;
    const fence = fenceOf(replay.beginSync('k', 'd', 1_000, 0));
    expect(replay.renewSync('k', fence, 1_000, 800)).toBe(true);
    expect(expiry('k')).toBe(1_800);
    expect(replay.renewSync('k', 'a-fence-never-issued', 60_000, 900)).toBe(false);
    expect(replay.renewSync('k', fence, 60_000, 1_800)).toBe(false); // lapsed at 1,800
    expect(expiry('k')).toBe(1_800);
    const next = fenceOf(replay.beginSync('k', 'd', 1_000, 1_800));
    expect(replay.renewSync('k', fence, 60_000, 1_900)).toBe(false);
    expect(expiry('k')).toBe(2_800);
    expect(replay.completeSync('k', next, 'd', { id: 'b1' }, 5_000, 2_000)).toBe(true);
    expect(replay.renewSync('k', next, 60_000, 2_100)).toBe(false);
    expect(expiry('k')).toBe(7_000);
  });

  it('refuses a sweep batch that could not keep up with writes', () => {
    expect(() => new SqliteReplayStore(memoryDb(), { sweepBatch: 1 })).toThrow(ConfigurationError);
  });
});

describe('SqlitePendingActionStore', () => {
  it('deletes nothing on insert; purgeExpired deletes only the actions expired longer ago than the retention', () => {
    const db = memoryDb();
    const store = new SqlitePendingActionStore(db, { expiredRetentionMs: 1_000 });
    store.insertSync(action('old', 100));
    store.insertSync(action('recent', 1_500));
    store.insertSync(action('new', 9_000, 2_000));
    const count = () => db.prepare('SELECT count(*) AS n FROM gatehouse_pending_actions').get();
    expect(count()).toEqual({ n: 3 });
    expect(store.findByTokenHashSync('h-old')?.expiresAt).toBe(100);
    expect(store.purgeExpiredSync(2_000)).toBe(1);
    expect(store.findByTokenHashSync('h-old')).toBeUndefined();
    expect(store.findByTokenHashSync('h-recent')?.expiresAt).toBe(1_500);
    expect(count()).toEqual({ n: 2 });
  });

  it('refuses a negative retention', () => {
    expect(() => new SqlitePendingActionStore(memoryDb(), { expiredRetentionMs: -1 })).toThrow(
      ConfigurationError,
    );
  });

  it('writes a claim to its columns, never reads the fence back, and clears both on every transition', () => {
    const db = memoryDb();
    const store = new SqlitePendingActionStore(db);
    const columns = () =>
      db.prepare('SELECT status, claim_fence, claim_expires_at FROM gatehouse_pending_actions').get();
    store.insertSync(action('pa1', 10_000));
    expect(columns()).toEqual({ status: 'pending', claim_fence: null, claim_expires_at: null });
    expect(store.claimSync('pa1', ['pending'], { fence: 'f-one', expiresAt: 500 }, 0)).toBe(true);
    expect(columns()).toEqual({ status: 'claimed', claim_fence: 'f-one', claim_expires_at: 500 });
    expect(store.renewClaimSync('pa1', 'f-one', 900)).toBe(true);
    expect(store.claimSync('pa1', ['pending'], { fence: 'f-two', expiresAt: 2_000 }, 899)).toBe(false);
    expect(columns()).toEqual({ status: 'claimed', claim_fence: 'f-one', claim_expires_at: 900 });
    expect(JSON.stringify(store.findByIdSync('pa1'))).not.toContain('f-one');
    expect(store.claimSync('pa1', ['pending'], { fence: 'f-two', expiresAt: 2_000 }, 900)).toBe(true);
    expect(store.transitionSync('pa1', ['claimed'], 'executed', { fence: 'f-one' })).toBe(false);
    expect(columns()).toEqual({ status: 'claimed', claim_fence: 'f-two', claim_expires_at: 2_000 });
    expect(store.transitionSync('pa1', ['claimed'], 'executed', { fence: 'f-two' })).toBe(true);
    expect(columns()).toEqual({ status: 'executed', claim_fence: null, claim_expires_at: null });
  });

  it('lets exactly one of two connections claim an action, and the other take it over once the claim lapsed', async () => {
    const temp = tempDatabase();
    try {
      const [a, b] = [new SqlitePendingActionStore(temp.open()), new SqlitePendingActionStore(temp.open())];
      await a.insert(action('pa1', 60_000));
      const fences = Array.from({ length: 200 }, (_, i) => `f${i}`);
      const won = await Promise.all(
        fences.map((fence, i) => (i % 2 ? a : b).claim('pa1', ['pending'], { fence, expiresAt: 1_000 }, 0)),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      const holder = fences[won.indexOf(true)] ?? '';
      expect(await b.claim('pa1', ['pending'], { fence: 'late', expiresAt: 5_000 }, 999)).toBe(false);
      expect(await b.claim('pa1', ['pending'], { fence: 'late', expiresAt: 5_000 }, 1_000)).toBe(true);
      expect(await a.renewClaim('pa1', holder, 9_000)).toBe(false);
      expect(await a.transition('pa1', ['claimed'], 'executed', undefined, { fence: holder })).toBe(false);
      expect(await a.transition('pa1', ['claimed'], 'executed', undefined, { fence: 'late' })).toBe(true);
      expect(b.findByIdSync('pa1')?.status).toBe('executed');
    } finally {
      temp.dispose();
    }
  });

  it('refuses an unknown status instead of storing it', () => {
    const store = new SqlitePendingActionStore(memoryDb());
    store.insertSync(action('pa1', 1_000));
    // @ts-expect-error: the status union has no such member
    expect(() => store.transitionSync('pa1', ['pending'], 'done')).toThrow(/CHECK/);
    expect(store.findByTokenHashSync('h-pa1')?.status).toBe('pending');
  });
});

describe('SqliteRateBucketStore', () => {
  it('refuses a limit whose capacity or refill rate is not positive', async () => {
    const store = new SqliteRateBucketStore(memoryDb());
    await expect(store.take('k', { capacity: 0, refillPerSecond: 1 }, 0)).rejects.toThrow(ConfigurationError);
    await expect(store.take('k', { capacity: 1, refillPerSecond: 0 }, 0)).rejects.toThrow(ConfigurationError);
  });

  it('gives a token back, never above capacity, and forgets nothing it did not take', () => {
    const db = memoryDb();
    const store = new SqliteRateBucketStore(db);
    const limit = { capacity: 2, refillPerSecond: 0.001 };
    store.takeSync('k', limit, 0);
    store.takeSync('k', limit, 0);
    expect(store.takeSync('k', limit, 0).ok).toBe(false);
    store.refundSync('k', limit, 0);
    expect(store.takeSync('k', limit, 0)).toEqual({ ok: true, remaining: 0 });
    store.refundSync('k', limit, 0);
    store.refundSync('k', limit, 0);
    store.refundSync('k', limit, 0);
    expect(store.takeSync('k', limit, 0)).toEqual({ ok: true, remaining: 1 });
    store.refundSync('unknown', limit, 0);
    expect(count(db, 'gatehouse_rate_buckets')).toBe(1);
  });

  it('refills nothing when time runs backwards between replicas', () => {
    const store = new SqliteRateBucketStore(memoryDb());
    const limit = { capacity: 2, refillPerSecond: 1 };
    store.takeSync('k', limit, 10_000);
    store.takeSync('k', limit, 10_000);
    expect(store.takeSync('k', limit, 9_000)).toEqual({ ok: false, retryAfterMs: 1_000 });
    expect(store.takeSync('k', limit, 10_999).ok).toBe(false);
    expect(store.takeSync('k', limit, 11_000).ok).toBe(true);
  });
});

describe('createSqliteStores', () => {
  it('migrates, builds all seven stores, and purges everything expired', async () => {
    const db = new Database(':memory:');
    const stores = createSqliteStores(db, { expiredRetentionMs: 500 });
    stores.replay.completeSync(
      'k',
      fenceOf(stores.replay.beginSync('k', 'd', 100, 0)),
      'd',
      { id: 'b1' },
      100,
      0,
    );
    stores.rateBuckets.takeSync('c1:read', { capacity: 1, refillPerSecond: 10 }, 0);
    stores.pendingActions.insertSync(action('pa1', 100));
    stores.pendingActions.insertSync(action('pa2', 10_000));
    await stores.authorization.save('Session', 's1', { payload: '{}', expiresAt: 300 });
    expect(stores.purgeExpired(400)).toEqual({
      replay: 1,
      pendingActions: 0,
      rateBuckets: 1,
      authorization: 1,
    });
    expect(stores.purgeExpired(700)).toEqual({
      replay: 0,
      pendingActions: 1,
      rateBuckets: 0,
      authorization: 0,
    });
    expect(Object.keys(stores).sort()).toEqual([
      'audit',
      'authorization',
      'close',
      'credentials',
      'housekeeping',
      'lock',
      'pendingActions',
      'purgeExpired',
      'rateBuckets',
      'replay',
      'switches',
      'unitOfWork',
    ]);
    expect(stores.unitOfWork.atomic).toBe(true);
  });

  it('makes every store write outside a unit of work wait for stores.lock, and runs one given the unit at once', async () => {
    const db = new Database(':memory:');
    const stores = createSqliteStores(db);
    const release = deferred();
    const holder = stores.lock.run(() => release.promise);
    const row = (id: string) => ({
      id,
      at: 0,
      channel: 'mcp',
      tenantId: 't1',
      connectionId: 'c1',
      clientName: 'cli',
      actorId: 'p1',
      action: 'book_visit',
      outcome: 'ok' as const,
      objectIds: [],
      note: null,
    });
    const writes: Promise<unknown>[] = [
      stores.audit.append(row('01A')),
      stores.replay.begin('k', 'd', 1_000, 0),
      stores.rateBuckets.take('c1:write', { capacity: 2, refillPerSecond: 1 }, 0),
      stores.pendingActions.insert(action('pa1', 10_000)),
      stores.switches.set('global', true),
      stores.credentials.insert(credential('cr1')),
      stores.replay.renew('k', 'f', 1_000, 0),
      stores.pendingActions.claim('pa1', ['pending'], { fence: 'f', expiresAt: 1_000 }, 0),
      stores.pendingActions.renewClaim('pa1', 'f', 2_000),
    ];
    const outside = writes.map((write) => tracked(write));
    await stores.audit.append(row('01B'), db);
    expect(await stores.pendingActions.transition('pa0', ['pending'], 'claimed', db)).toBe(false);
    await pause(10);
    expect(outside.map((w) => w.settled())).toEqual(Array.from(writes, () => false));
    expect(count(db, 'gatehouse_audit')).toBe(1);
    release.resolve();
    await holder;
    await Promise.all(outside.map((w) => w.promise));
    expect(count(db, 'gatehouse_audit')).toBe(2);
    expect(stores.switches.getSync('global')).toBe(true);
    // the claim and its renewal ran after the insert, in the lock's order
    expect(stores.pendingActions.findByIdSync('pa1')).toMatchObject({
      status: 'claimed',
      claimExpiresAt: 2_000,
    });
  });

  it('refuses bad options before touching the database', () => {
    const db = new Database(':memory:');
    expect(() => createSqliteStores(db, { sweepBatch: 0 })).toThrow(ConfigurationError);
    expect(() => createSqliteStores(db, { expiredRetentionMs: 1.5 })).toThrow(ConfigurationError);
    expect(count(db, 'sqlite_master')).toBe(0);
  });
});
