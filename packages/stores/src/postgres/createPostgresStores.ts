import { ConfigurationError, type UnitOfWork } from '@gatehousejs/core';
import type pg from 'pg';
import type { PurgeCounts } from '../createSqliteStores.js';
import { duration, type SweepOptions, sweepBatch } from '../internal/options.js';
import { PostgresAuditStore } from './auditStore.js';
import { PostgresAuthorizationStore } from './authorizationStore.js';
import { PostgresCredentialStore } from './credentialStore.js';
import { migrateGatehouseSchemaPostgres } from './migrations.js';
import { PostgresPendingActionStore } from './pendingActionStore.js';
import { PostgresRateBucketStore } from './rateBucketStore.js';
import { PostgresReplayStore } from './replayStore.js';
import { PostgresSwitchStore } from './switchStore.js';
import { postgresUnitOfWork } from './unitOfWork.js';

/** Options of {@link createPostgresStores}. */
export interface PostgresStoresOptions extends SweepOptions {
  /**
   * How long an expired pending action stays findable (a late confirmation
   * answers "expired", not "not found") before a purge deletes it; default one hour.
   */
  readonly expiredRetentionMs?: number;
  /**
   * Every replay claim waits for the WAL flush: set it when the product's
   * data is in another database than the pool's. Default false: a claim
   * rides on the unit's commit once its completions are seen inside
   * `unitOfWork` (see {@link PostgresReplayStore}).
   */
  readonly durableClaims?: boolean;
}

/** The seven PostgreSQL stores over one pool, the unit of work, a purge and a readiness probe. */
export interface PostgresStores {
  readonly replay: PostgresReplayStore;
  readonly pendingActions: PostgresPendingActionStore;
  readonly audit: PostgresAuditStore;
  readonly switches: PostgresSwitchStore;
  readonly rateBuckets: PostgresRateBucketStore;
  readonly credentials: PostgresCredentialStore;
  /** An OAuth authorization server's records and keys (oidc-provider's storage). */
  readonly authorization: PostgresAuthorizationStore;
  /** Core's unit of work on the pool: `createServer({ unitOfWork: stores.unitOfWork })`; its handle is a `PoolClient`. */
  readonly unitOfWork: UnitOfWork<pg.PoolClient>;
  /** The pool every store queries. */
  readonly pool: pg.Pool;
  /**
   * Deletes expired replay records, rate buckets and authorization records,
   * and pending actions expired longer than `expiredRetentionMs` before `now`, `sweepBatch` rows
   * per statement until none is left (short statements, short locks). No
   * request deletes expired replay records or rate buckets (a request treats
   * them as absent): call this from a timer (housekeeping) or a CLI, or
   * those tables grow with every distinct call.
   */
  purgeExpired(now: number): Promise<PurgeCounts>;
  /** `SELECT 1` through the pool; rejects when the database does not answer (readiness probes). */
  ping(): Promise<void>;
}

/**
 * Migrates the schema (idempotent, versioned, safe when several replicas
 * start at once) and builds all seven stores on `pool`, with the unit of work
 * they share: a write, its audit row and its replay record commit in one
 * transaction, and bookkeeping outside it commits on its own. Every "only
 * once" promise is one atomic statement, so it holds across every replica
 * sharing the database. Refuses bad options (ConfigurationError) before
 * touching the database.
 *
 * @example
 * const stores = await createPostgresStores(createPostgresPool({ connectionString: process.env.DATABASE_URL }));
 */
export async function createPostgresStores(
  pool: pg.Pool,
  options: PostgresStoresOptions = {},
): Promise<PostgresStores> {
  const name = 'createPostgresStores';
  if (typeof (pool as Partial<pg.Pool> | null)?.query !== 'function') {
    throw new ConfigurationError(`${name}: pass a pg Pool (createPostgresPool).`);
  }
  const retentionMs = duration(name, 'expiredRetentionMs', options.expiredRetentionMs ?? 3_600_000);
  const sweep = { sweepBatch: sweepBatch(name, options.sweepBatch) };
  const durableClaims = options.durableClaims ?? false;
  if (typeof durableClaims !== 'boolean') {
    throw new ConfigurationError(`${name}: durableClaims must be true or false.`);
  }
  await migrateGatehouseSchemaPostgres(pool);
  const replay = new PostgresReplayStore(pool, { ...sweep, durableClaims });
  const pendingActions = new PostgresPendingActionStore(pool, { ...sweep, expiredRetentionMs: retentionMs });
  const rateBuckets = new PostgresRateBucketStore(pool, sweep);
  const authorization = new PostgresAuthorizationStore(pool);
  return Object.freeze({
    replay,
    pendingActions,
    audit: new PostgresAuditStore(pool),
    switches: new PostgresSwitchStore(pool),
    rateBuckets,
    credentials: new PostgresCredentialStore(pool),
    authorization,
    unitOfWork: postgresUnitOfWork(pool),
    pool,
    purgeExpired: async (now: number): Promise<PurgeCounts> => ({
      replay: await replay.purgeExpired(now),
      pendingActions: await pendingActions.purgeExpired(now),
      rateBuckets: await rateBuckets.purgeExpired(now),
      authorization: await authorization.purgeExpired(now),
    }),
    ping: async (): Promise<void> => {
      await pool.query('SELECT 1');
    },
  });
}
