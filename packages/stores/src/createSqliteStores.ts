import { ConfigurationError, type UnitOfWork } from '@gatehousejs/core';
import { SqliteAuditStore } from './auditStore.js';
import { SqliteAuthorizationStore } from './authorizationStore.js';
import { SqliteCredentialStore } from './credentialStore.js';
import type { SqliteDatabase } from './database.js';
import { bookkeepingFor } from './internal/bookkeeping.js';
import { lockWait } from './internal/lockWait.js';
import { duration, sweepBatch } from './internal/options.js';
import { writer } from './internal/writes.js';
import { migrateGatehouseSchema } from './migrations.js';
import { SqlitePendingActionStore, type SqlitePendingActionStoreOptions } from './pendingActionStore.js';
import { SqliteRateBucketStore } from './rateBucketStore.js';
import { SqliteReplayStore } from './replayStore.js';
import { SqliteSwitchStore } from './switchStore.js';
import { createWriteLock, sqliteUnitOfWork, type WriteLock } from './unitOfWork.js';

/**
 * Options of {@link createSqliteStores}; `lockWaitMs` (default 5,000) bounds
 * how long the stores' writes and the unit of work wait, on timers, for
 * another connection's write lock.
 */
export interface SqliteStoresOptions extends SqlitePendingActionStoreOptions {
  /** The write lock shared by the stores, the unit of work and the host's writes; default a new one. */
  readonly lock?: WriteLock;
  /**
   * Every replay claim waits for the disk: set it when the product's data is
   * in another database than `db`, so the unit's commit syncs nothing of it.
   * Default false: a claim rides on the unit's durable commit once its
   * completions are seen inside `unitOfWork` (see the stores guide).
   */
  readonly durableClaims?: boolean;
}

/** How many rows {@link SqliteStores.purgeExpired} deleted, per table. */
export interface PurgeCounts {
  readonly replay: number;
  readonly pendingActions: number;
  readonly rateBuckets: number;
  /** Expired records of the OAuth authorization server (codes, tokens, sessions). */
  readonly authorization: number;
}

/** The seven SQLite stores over one database, plus a purge of everything expired. */
export interface SqliteStores {
  readonly replay: SqliteReplayStore;
  readonly pendingActions: SqlitePendingActionStore;
  readonly audit: SqliteAuditStore;
  readonly switches: SqliteSwitchStore;
  readonly rateBuckets: SqliteRateBucketStore;
  readonly credentials: SqliteCredentialStore;
  /** An OAuth authorization server's records and keys (oidc-provider's storage). */
  readonly authorization: SqliteAuthorizationStore;
  /** The lock every writer on this handle shares; take it for the host's own writes. */
  readonly lock: WriteLock;
  /** Core's unit of work on this handle: `createServer({ unitOfWork: stores.unitOfWork })`. */
  readonly unitOfWork: UnitOfWork<SqliteDatabase>;
  /**
   * Deletes expired replay records, rate buckets and authorization records,
   * and pending actions expired longer than `expiredRetentionMs` before
   * `now`. No request deletes expired replay records or rate buckets (a
   * request treats them as absent): call this from a timer (housekeeping) or
   * a CLI, or those tables grow with every distinct call.
   */
  purgeExpired(now: number): PurgeCounts;
  /**
   * {@link purgeExpired} as a timer runs it, in one IMMEDIATE transaction:
   * under `lock` (never inside an open unit of work), and while another connection holds the file it waits
   * on timers, up to `lockWaitMs`, never in the busy handler (so it suits a
   * handle with busy timeout 0); then it rejects with `SQLITE_BUSY`.
   */
  housekeeping(now: number): Promise<PurgeCounts>;
  /**
   * Closes the connection the stores opened beside `db` for their
   * bookkeeping (rate takes, replay claims); later bookkeeping runs on `db`.
   * Call it before closing `db`; idempotent. `db` stays the host's to close.
   */
  close(): void;
}

/**
 * Migrates the schema (idempotent) and builds all seven stores on `db`, the
 * product's own database, with the unit of work and the write lock they
 * share, so a write, its audit row and its replay record commit in one
 * transaction, and bookkeeping outside it commits on its own: on a file in
 * WAL mode, rate takes and replay claims commit on a second connection the
 * stores open (see {@link SqliteStores.close}) without waiting for the disk,
 * since the unit's durable commit syncs them with the write (the stores
 * guide has the argument). While another
 * connection holds the file's write lock, writes wait on timers (the event
 * loop keeps serving) up to `lockWaitMs`, then fail closed. Refuses bad
 * options (ConfigurationError) before touching the database.
 *
 * @example
 * const stores = createSqliteStores(openDatabase('app.db'));
 */
export function createSqliteStores(db: SqliteDatabase, options: SqliteStoresOptions = {}): SqliteStores {
  const name = 'createSqliteStores';
  const retentionMs = duration(name, 'expiredRetentionMs', options.expiredRetentionMs ?? 3_600_000);
  const lockWaitMs = lockWait(name, options.lockWaitMs);
  if (db?.readonly === true) {
    throw new ConfigurationError(
      `${name}: the stores write; pass the write connection, not a read-only one.`,
    );
  }
  const lock = options.lock ?? createWriteLock();
  const writes = { lock, lockWaitMs };
  const sweep = { sweepBatch: sweepBatch(name, options.sweepBatch), ...writes };
  const durableClaims = options.durableClaims ?? false;
  if (typeof durableClaims !== 'boolean') {
    throw new ConfigurationError(`${name}: durableClaims must be true or false.`);
  }
  migrateGatehouseSchema(db);
  const ledger = bookkeepingFor(db);
  const bookkeeping = ledger ? { bookkeeping: ledger.connection } : {};
  const pendingActions = new SqlitePendingActionStore(db, { ...sweep, expiredRetentionMs: retentionMs });
  const replay = new SqliteReplayStore(db, { ...sweep, ...bookkeeping, durableClaims });
  const rateBuckets = new SqliteRateBucketStore(db, { ...sweep, ...bookkeeping });
  const authorization = new SqliteAuthorizationStore(db, writes);
  const purgeExpired = (now: number): PurgeCounts => ({
    replay: replay.purgeExpired(now),
    pendingActions: pendingActions.purgeExpiredSync(now),
    rateBuckets: rateBuckets.purgeExpired(now),
    authorization: authorization.purgeExpiredSync(now),
  });
  const purgeAll = db.transaction(purgeExpired);
  const purge = writer(db, name, writes);
  return Object.freeze({
    replay,
    pendingActions,
    audit: new SqliteAuditStore(db, writes),
    switches: new SqliteSwitchStore(db, writes),
    rateBuckets,
    credentials: new SqliteCredentialStore(db, writes),
    authorization,
    lock,
    unitOfWork: sqliteUnitOfWork(db, lock, { lockWaitMs }),
    purgeExpired,
    housekeeping: (now: number) => purge(undefined, () => purgeAll.immediate(now)),
    close: () => ledger?.close(),
  });
}
