// PostgresRateBucketStore sends the takes of one bucket that overlap as one statement per batch:
// the answers and the stored bucket are those of one take after another, and replicas that
// batch at once still never grant more than the capacity between them.
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPostgresPool,
  migrateGatehouseSchemaPostgres,
  PostgresRateBucketStore,
} from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';

const available = await postgresAvailable();

/** A pool whose `query` is counted, and fails where `fail(n)` says so for the n-th statement (from 0). */
function countedPool(pool: pg.Pool, fail: (n: number) => boolean = () => false) {
  const counted = { statements: 0 };
  const query = (config: pg.QueryConfig) => {
    const n = counted.statements++;
    return fail(n) ? Promise.reject(new Error('connection lost')) : pool.query(config);
  };
  return { pool: { query } as unknown as pg.Pool, counted };
}

describe.skipIf(!available)('PostgresRateBucketStore batches overlapping takes of one bucket', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await migrateGatehouseSchemaPostgres(database.pool);
  });
  afterAll(() => database?.drop());
  beforeEach(() => database.pool.query('TRUNCATE gatehouse_rate_buckets'));

  const storedTokens = async (key: string) =>
    (
      await database.pool.query<{ tokens: number }>(
        "SELECT tokens FROM gatehouse_rate_buckets WHERE key = convert_to($1, 'UTF8')",
        [key],
      )
    ).rows.map((row) => row.tokens);

  it('answers 50 overlapping takes with two statements, as 50 takes one after another would', async () => {
    const { pool, counted } = countedPool(database.pool);
    const store = new PostgresRateBucketStore(pool);
    const limit = { capacity: 30, refillPerSecond: 0.001 };
    const answers = await Promise.all(Array.from({ length: 50 }, () => store.take('c1:read', limit, 0)));
    // the first goes alone; the 49 that arrive while it is at the database go as the next statement
    expect(counted.statements).toBe(2);
    expect(answers).toEqual([
      ...Array.from({ length: 30 }, (_, i) => ({ ok: true, remaining: 29 - i })),
      ...Array.from({ length: 20 }, () => ({ ok: false, retryAfterMs: 1_000_000 })),
    ]);
    expect(await storedTokens('c1:read')).toEqual([0]);
  });

  it('refills once per batch, at the latest instant among its takes, and never gives a fraction of a token', async () => {
    const store = new PostgresRateBucketStore(database.pool);
    const limit = { capacity: 4, refillPerSecond: 1 };
    for (let i = 0; i < 4; i++) await store.take('k', limit, 0);
    // 2.5 s later: 2.5 tokens; the first take leaves 1.5, the batch of three after it gets one of them
    const answers = await Promise.all([2_000, 2_500, 2_400, 2_100].map((now) => store.take('k', limit, now)));
    expect(answers).toEqual([
      { ok: true, remaining: 1 }, // alone, at 2 s: 2 tokens, one taken
      { ok: true, remaining: 0 }, // the batch at 2.5 s: 1 + 0.5 refilled = 1.5, one taken
      { ok: false, retryAfterMs: 500 },
      { ok: false, retryAfterMs: 500 },
    ]);
    expect(await storedTokens('k')).toEqual([0.5]);
  });

  it('keeps the buckets of other keys and other limits out of a batch', async () => {
    const { pool, counted } = countedPool(database.pool);
    const store = new PostgresRateBucketStore(pool);
    const limit = { capacity: 10, refillPerSecond: 0.001 };
    const answers = await Promise.all([
      store.take('a', limit, 0),
      store.take('b', limit, 0), // another key: goes at once
      store.take('a', limit, 0),
      store.take('a', limit, 0),
      store.take('a', { capacity: 20, refillPerSecond: 0.001 }, 0), // same row, another limit: goes at once
    ]);
    // a, b and a under the other limit go alone; the two takes of a that overlapped go together
    expect(counted.statements).toBe(4);
    expect(answers.every((a) => a.ok)).toBe(true);
  });

  it('lets two replicas batch at once and still grant exactly the capacity between them', async () => {
    const other = createPostgresPool({ connectionString: database.url, max: 10 });
    try {
      const stores = [new PostgresRateBucketStore(database.pool), new PostgresRateBucketStore(other)];
      const limit = { capacity: 25, refillPerSecond: 0.001 };
      const answers = await Promise.all(
        Array.from({ length: 400 }, (_, i) => stores[i % 2]?.take('shared:write', limit, 0)),
      );
      expect(answers.filter((a) => a?.ok)).toHaveLength(25);
      expect(await storedTokens('shared:write')).toEqual([0]);
    } finally {
      await other.end();
    }
  });

  it('rejects only the takes of a failed batch; they take nothing, and the next batch goes', async () => {
    const { pool } = countedPool(database.pool, (n) => n === 1);
    const store = new PostgresRateBucketStore(pool);
    const limit = { capacity: 5, refillPerSecond: 0.001 };
    const first = store.take('k', limit, 0);
    const failed = [store.take('k', limit, 0), store.take('k', limit, 0)];
    expect(await first).toEqual({ ok: true, remaining: 4 });
    for (const take of failed) await expect(take).rejects.toThrow('connection lost');
    expect(await store.take('k', limit, 0)).toEqual({ ok: true, remaining: 3 });
    expect(await storedTokens('k')).toEqual([3]);
  });
});
