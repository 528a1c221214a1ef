// Which PostgreSQL commits wait for the WAL flush: a rate take and a lease
// renewal never; a replay claim only until the store has seen a claim
// complete inside a unit of work on its own pool (then the unit's commit
// flushes the WAL past it), and again for good after a completion outside
// one; never with durableClaims. The setting is the claim's own
// transaction's: the pooled session, and so every unit of work on it, keeps
// synchronous_commit on.
import type { ReplayBegin } from '@gatehousejs/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPostgresPool, createPostgresStores, type PostgresStores } from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';

const available = await postgresAvailable();

const fenceOf = (begin: ReplayBegin): string => {
  if (begin.state !== 'started') throw new Error(`expected to start the key, found it ${begin.state}`);
  return begin.fence;
};

const NO_DISK_WAIT = /set_config\('synchronous_commit', 'off', true\)/;

describe.skipIf(!available)('the PostgreSQL stores’ commits', () => {
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    await Promise.all(databases.splice(0).map((d) => d.drop()));
  });

  /** Stores on a pool of one connection, so claims, takes and units all run on the same session. */
  const oneSession = async (options: { durableClaims?: boolean } = {}) => {
    const database = await createTestDatabase();
    databases.push(database);
    const pool = createPostgresPool({ connectionString: database.url, max: 1 });
    const stores = await createPostgresStores(pool, options);
    const query = vi.spyOn(pool, 'query');
    // a statement is its text or, prepared, a config carrying it
    const texts = () =>
      query.mock.calls
        .splice(0)
        .map(([sql]) => (typeof sql === 'string' ? sql : String((sql as { text?: unknown }).text)));
    const close = async () => {
      query.mockRestore();
      await pool.end();
    };
    return { stores, pool, texts, close };
  };

  /** The claim of `key` and whether it was sent to commit without waiting for the WAL flush. */
  const claim = async (stores: PostgresStores, texts: () => string[], key: string, now: number) => {
    texts();
    const fence = fenceOf(await stores.replay.begin(key, 'd', 10_000, now));
    return { fence, withoutDiskWait: texts().some((sql) => NO_DISK_WAIT.test(sql)) };
  };

  /** A unit of work completing `key`; answers synchronous_commit as the unit's transaction sees it. */
  const unit = (stores: PostgresStores, key: string, fence: string, now: number) =>
    stores.unitOfWork.run(async (client) => {
      const shown = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      await stores.replay.complete(key, fence, 'd', { id: key }, 60_000, now, client);
      return shown.rows[0]?.synchronous_commit;
    });

  it('commits a claim without waiting for the WAL flush once paired with a unit on its pool, and every unit still sees synchronous_commit on', async () => {
    const { stores, texts, close } = await oneSession();
    try {
      const first = await claim(stores, texts, 'k1', 0);
      expect(first.withoutDiskWait).toBe(false);
      expect(await unit(stores, 'k1', first.fence, 0)).toBe('on');
      const second = await claim(stores, texts, 'k2', 1);
      expect(second.withoutDiskWait).toBe(true);
      await stores.rateBuckets.take('c1:write', { capacity: 5, refillPerSecond: 1 }, 1);
      expect(texts().every((sql) => NO_DISK_WAIT.test(sql))).toBe(true);
      await stores.replay.renew('k2', second.fence, 10_000, 2);
      expect(texts().every((sql) => NO_DISK_WAIT.test(sql))).toBe(true);
      // the same session ran the claim, the take and the renewal: its own setting never moved
      expect(await unit(stores, 'k2', second.fence, 2)).toBe('on');
      expect(await stores.replay.begin('k2', 'd', 10_000, 3)).toMatchObject({ state: 'completed' });
    } finally {
      await close();
    }
  });

  it('keeps every later claim waiting for the WAL flush after a completion outside a unit (separateCommits)', async () => {
    const { stores, texts, close } = await oneSession();
    try {
      const paired = await claim(stores, texts, 'k1', 0);
      await unit(stores, 'k1', paired.fence, 0);
      const separate = await claim(stores, texts, 'k2', 1);
      expect(separate.withoutDiskWait).toBe(true);
      await stores.replay.complete('k2', separate.fence, 'd', { id: 'k2' }, 60_000, 1); // no unit
      const after = await claim(stores, texts, 'k3', 2);
      expect(after.withoutDiskWait).toBe(false);
      await unit(stores, 'k3', after.fence, 2);
      expect((await claim(stores, texts, 'k4', 3)).withoutDiskWait).toBe(false);
    } finally {
      await close();
    }
  });

  it('keeps every claim waiting for the WAL flush with durableClaims, or with a unit on another pool', async () => {
    const durable = await oneSession({ durableClaims: true });
    try {
      const first = await claim(durable.stores, durable.texts, 'k1', 0);
      await unit(durable.stores, 'k1', first.fence, 0);
      expect((await claim(durable.stores, durable.texts, 'k2', 1)).withoutDiskWait).toBe(false);
    } finally {
      await durable.close();
    }
    const elsewhere = await oneSession();
    const other = await oneSession();
    try {
      const first = await claim(elsewhere.stores, elsewhere.texts, 'k1', 0);
      // the product's unit of work runs on another database's pool
      await other.stores.unitOfWork.run((client) =>
        elsewhere.stores.replay.complete('k1', first.fence, 'd', { id: 'k1' }, 60_000, 0, client),
      );
      expect((await claim(elsewhere.stores, elsewhere.texts, 'k2', 1)).withoutDiskWait).toBe(false);
    } finally {
      await elsewhere.close();
      await other.close();
    }
  });
});
