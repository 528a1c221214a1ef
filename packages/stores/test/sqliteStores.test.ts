import { ConfigurationError } from '@gatehousejs/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  createSqliteStores,
  migrateGatehouseSchema,
  SqlitePendingActionStore,
  SqliteRateBucketStore,
  SqliteReplayStore,
} from '../src/index.js';
import { pendingAction } from './fixtures/records.js';

const memoryDb = (): Database.Database => {
  const db = new Database(':memory:');
  migrateGatehouseSchema(db);
  return db;
};

const count = (db: Database.Database, table: string): number =>
  db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;

const action = (id: string, expiresAt: number, createdAt = 0) => pendingAction(id, { expiresAt, createdAt });

describe('SqliteReplayStore', () => {
  it('keeps a completed result when a late release arrives', async () => {
    const store = new SqliteReplayStore(memoryDb());
    await store.begin('k', 'd', 1_000, 0);
    await store.complete('k', 'd', { id: 'b1' }, 60_000, 1);
    await store.release('k');
    expect(await store.begin('k', 'd', 1_000, 2)).toMatchObject({ state: 'completed', result: { id: 'b1' } });
  });

  it('commits the replay record with the host’s write in one transaction, or neither', () => {
    const db = memoryDb();
    db.exec('CREATE TABLE bookings (id TEXT PRIMARY KEY)');
    const replay = new SqliteReplayStore(db);
    const insert = db.prepare<[string]>('INSERT INTO bookings (id) VALUES (?)');
    const write = db.transaction((id: string, fail: boolean) => {
      insert.run(id);
      replay.completeSync(`fp-${id}`, 'd', { id }, 60_000, 0);
      if (fail) throw new Error('the service refused after writing');
    });
    expect(replay.beginSync('fp-b1', 'd', 5_000, 0).state).toBe('started');
    expect(() => write.immediate('b1', true)).toThrow(/refused/);
    expect(count(db, 'bookings')).toBe(0);
    expect(replay.beginSync('fp-b1', 'd', 5_000, 1).state).toBe('running');
    replay.releaseSync('fp-b1');
    expect(replay.beginSync('fp-b1', 'd', 5_000, 2).state).toBe('started');
    write.immediate('b1', false);
    expect(count(db, 'bookings')).toBe(1);
    expect(replay.beginSync('fp-b1', 'd', 5_000, 3)).toMatchObject({
      state: 'completed',
      result: { id: 'b1' },
    });
  });

  it('makes expired records invisible at once, sweeps them on writes and purges them on request', () => {
    const db = memoryDb();
    const replay = new SqliteReplayStore(db);
    for (let i = 0; i < 10; i++) replay.completeSync(`k${i}`, 'd', { i }, 100, 0);
    replay.completeSync('live', 'd', { i: -1 }, 1_000, 0);
    expect(replay.purgeExpired(99)).toBe(0);
    expect(replay.beginSync('k3', 'd', 10, 100).state).toBe('started');
    expect(count(db, 'gatehouse_replay')).toBe(2);
    expect(replay.purgeExpired(200)).toBe(1);
    expect(count(db, 'gatehouse_replay')).toBe(1);
  });

  it('refuses a sweep batch that could not keep up with writes', () => {
    expect(() => new SqliteReplayStore(memoryDb(), { sweepBatch: 1 })).toThrow(ConfigurationError);
  });
});

describe('SqlitePendingActionStore', () => {
  it('sweeps on insert only the actions expired longer ago than the retention', () => {
    const db = memoryDb();
    const store = new SqlitePendingActionStore(db, { expiredRetentionMs: 1_000 });
    store.insertSync(action('old', 100));
    store.insertSync(action('recent', 1_500));
    store.insertSync(action('new', 9_000, 2_000));
    expect(store.findByTokenHashSync('h-old')).toBeUndefined();
    expect(store.findByTokenHashSync('h-recent')?.expiresAt).toBe(1_500);
  });

  it('refuses a negative retention', () => {
    expect(() => new SqlitePendingActionStore(memoryDb(), { expiredRetentionMs: -1 })).toThrow(
      ConfigurationError,
    );
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
  it('migrates, builds all six stores, and purges everything expired', () => {
    const db = new Database(':memory:');
    const stores = createSqliteStores(db, { expiredRetentionMs: 500 });
    stores.replay.completeSync('k', 'd', { id: 'b1' }, 100, 0);
    stores.rateBuckets.takeSync('c1:read', { capacity: 1, refillPerSecond: 10 }, 0);
    stores.pendingActions.insertSync(action('pa1', 100));
    stores.pendingActions.insertSync(action('pa2', 10_000));
    expect(stores.purgeExpired(400)).toEqual({ replay: 1, pendingActions: 0, rateBuckets: 1 });
    expect(stores.purgeExpired(700)).toEqual({ replay: 0, pendingActions: 1, rateBuckets: 0 });
    expect(Object.keys(stores).sort()).toEqual([
      'audit',
      'credentials',
      'pendingActions',
      'purgeExpired',
      'rateBuckets',
      'replay',
      'switches',
    ]);
  });

  it('refuses bad options before touching the database', () => {
    const db = new Database(':memory:');
    expect(() => createSqliteStores(db, { sweepBatch: 0 })).toThrow(ConfigurationError);
    expect(() => createSqliteStores(db, { expiredRetentionMs: 1.5 })).toThrow(ConfigurationError);
    expect(count(db, 'sqlite_master')).toBe(0);
  });
});
