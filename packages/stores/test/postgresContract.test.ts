// The six store contracts of @gatehousejs/testing, on PostgreSQL: one database
// for the file, tables emptied before each test, `restart` builds the store
// again on a new pool (a restarted process), `count` counts the table.
import type { StoreFactory } from '@gatehousejs/testing/vitest';
import {
  describeAuditStore,
  describeAuthorizationStore,
  describeCredentialStore,
  describePendingActionStore,
  describeRateBucketStore,
  describeReplayStore,
  describeSwitchStore,
} from '@gatehousejs/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresPool,
  migrateGatehouseSchemaPostgres,
  PostgresAuditStore,
  PostgresAuthorizationStore,
  PostgresCredentialStore,
  PostgresPendingActionStore,
  PostgresRateBucketStore,
  PostgresReplayStore,
  PostgresSwitchStore,
} from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';

const available = await postgresAvailable();

/**
 * How long a store call of these contracts may wait for a pooled connection.
 * Their cases start up to 1,000 calls at once on a pool of 10, so the last
 * ones queue behind hundreds of statements; on a loaded machine that passes
 * the pool's 2 s default, and the case would measure the machine, not the
 * store's answers.
 */
const CONTRACT_POOL_WAIT_MS = 30_000;

describe.skipIf(!available)('the store contracts on PostgreSQL', () => {
  let database: TestDatabase;
  /** The stores' pool: the fixture database's, with the contracts' patience for a connection. */
  let contractPool: pg.Pool;
  beforeAll(async () => {
    database = await createTestDatabase();
    await migrateGatehouseSchemaPostgres(database.pool);
    contractPool = createPostgresPool({
      connectionString: database.url,
      max: 10,
      connectionTimeoutMs: CONTRACT_POOL_WAIT_MS,
    });
  });
  afterAll(async () => {
    await contractPool?.end();
    await database?.drop();
  });

  /** A contract factory over `table` (and `alongside`), emptied first; every restart opens a new pool. */
  const factory =
    <S>(
      table: string,
      build: (pool: pg.Pool) => S,
      alongside: readonly string[] = [],
      purge?: (store: S, now: number) => unknown,
    ): StoreFactory<S> =>
    async () => {
      await database.pool.query(`TRUNCATE ${[table, ...alongside].join(', ')}`);
      const pools: pg.Pool[] = [];
      const store = build(contractPool);
      return {
        store,
        ...(purge ? { purge: (now: number) => purge(store, now) } : {}),
        restart() {
          const pool = createPostgresPool({
            connectionString: database.url,
            max: 4,
            connectionTimeoutMs: CONTRACT_POOL_WAIT_MS,
          });
          pools.push(pool);
          return build(pool);
        },
        count: async () => {
          const { rows } = await database.pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
          return rows[0]?.n ?? 0;
        },
        close: async () => {
          await Promise.all(pools.map((pool) => pool.end()));
        },
      };
    };

  describeReplayStore(
    'PostgresReplayStore',
    factory(
      'gatehouse_replay',
      (pool) => new PostgresReplayStore(pool),
      [],
      (store, now) => store.purgeExpired(now),
    ),
  );
  describePendingActionStore(
    'PostgresPendingActionStore',
    factory('gatehouse_pending_actions', (pool) => new PostgresPendingActionStore(pool)),
  );
  // Optional in the interface, so the contract skips them when absent; the bundled store must have both.
  it('gives PostgresPendingActionStore findById and listAwaitingApproval', () => {
    const store = new PostgresPendingActionStore(database.pool);
    expect([typeof store.findById, typeof store.listAwaitingApproval]).toEqual(['function', 'function']);
  });

  describeAuditStore(
    'PostgresAuditStore',
    factory('gatehouse_audit', (pool) => new PostgresAuditStore(pool)),
  );
  describeAuthorizationStore(
    'PostgresAuthorizationStore',
    factory('gatehouse_oauth_records', (pool) => new PostgresAuthorizationStore(pool), [
      'gatehouse_oauth_keys',
    ]),
  );
  describeSwitchStore(
    'PostgresSwitchStore',
    factory('gatehouse_switches', (pool) => new PostgresSwitchStore(pool)),
  );
  describeRateBucketStore(
    'PostgresRateBucketStore',
    factory(
      'gatehouse_rate_buckets',
      (pool) => new PostgresRateBucketStore(pool),
      [],
      (store, now) => store.purgeExpired(now),
    ),
  );
  describeCredentialStore(
    'PostgresCredentialStore',
    factory('gatehouse_credentials', (pool) => new PostgresCredentialStore(pool)),
  );
});
