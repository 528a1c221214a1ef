import type {
  AuditStore,
  AuthorizationStore,
  CredentialDirectory,
  CredentialStore,
  Effect,
  PendingActionStore,
  RateBucketStore,
  ReplayStore,
  SwitchStore,
  UnitOfWork,
} from '@gatehousejs/core';
import type { PurgeCounts, SqliteDatabase } from '@gatehousejs/stores';
import type pg from 'pg';
import type { BookingDb } from './tables.js';

/** Which database the product runs on. */
export type BookingEngine = 'sqlite' | 'postgres';

/** Gatehouse's six stores and their unit of work, the same shape on both engines; `THandle` is the engine's. */
export interface BookingStores<THandle = unknown> {
  readonly replay: ReplayStore;
  readonly pendingActions: PendingActionStore;
  readonly audit: AuditStore;
  readonly switches: SwitchStore;
  readonly rateBuckets: RateBucketStore;
  /** Credentials, listed for the console's Tokens page. */
  readonly credentials: CredentialStore & CredentialDirectory;
  /** The OAuth authorization server's records and keys, shared by replicas. */
  readonly authorization: AuthorizationStore;
  /** One transaction on one connection; its handle is what {@link BookingDatabaseBase.writeIn} takes. */
  readonly unitOfWork: UnitOfWork<THandle>;
  /** Deletes expired replay records, pending actions, rate buckets and authorization records. */
  purgeExpired(now: number): Promise<PurgeCounts>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
}

/**
 * What both engines offer the product. `THandle` is the engine's unit-of-work
 * handle (a SQLite database, a `pg.PoolClient`): core hands it to the services
 * the gatehouse builds, typed, and `writeIn` takes it without a cast.
 */
export interface BookingDatabaseBase<THandle = unknown> {
  readonly engine: BookingEngine;
  /** What the banner and the CLI name: the file, or the PostgreSQL database's name (never a password). */
  readonly file: string;
  /** For reads and for writes outside MCP (which run through {@link write}). */
  readonly kysely: BookingDb;
  /** For the reads of read tools: never inside another call's open transaction. */
  readonly reader: BookingDb;
  readonly stores: BookingStores<THandle>;
  /**
   * Rate bucket stores by effect class that differ from `stores.rateBuckets`
   * (SQLite: the `read` bucket in process memory, so a read never writes the
   * file; PostgreSQL: none, every replica shares every bucket).
   */
  readonly rateStores: Partial<Record<Effect, RateBucketStore>>;
  /**
   * Whether a service write inside a unit of work is a savepoint (SQLite, in
   * process and free) or simply joins the unit's transaction (PostgreSQL,
   * where each statement is a round trip; a failed write fails the unit).
   */
  readonly savepoints: boolean;
  /** Whether check-then-act reads lock the rows they check (`FOR UPDATE`); SQLite's writer lock already serializes. */
  readonly locksRows: boolean;
  /** A Kysely bound to a unit of work's handle: its statements join that transaction. */
  writeIn(handle: THandle): BookingDb;
  /** Runs `work` in one unit of work (one transaction; waits for the lock without blocking). */
  write<T>(work: (db: BookingDb, handle: THandle) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The product on a SQLite file. */
export interface SqliteBookingDatabase extends BookingDatabaseBase<SqliteDatabase> {
  readonly engine: 'sqlite';
  /** The better-sqlite3 handle every write shares. */
  readonly db: SqliteDatabase;
}

/** The product on PostgreSQL. */
export interface PostgresBookingDatabase extends BookingDatabaseBase<pg.PoolClient> {
  readonly engine: 'postgres';
}

/** The product's database on either engine. */
export type BookingDatabase = SqliteBookingDatabase | PostgresBookingDatabase;

/**
 * Runs `work` with the database typed by its engine's unit-of-work handle,
 * so what it builds (the gatehouse, the services, the MCP server) takes that
 * handle, a SQLite database or a `pg.PoolClient`, without a cast.
 */
export function byEngine<T>(
  database: BookingDatabase,
  work: <THandle>(database: BookingDatabaseBase<THandle>) => T,
): T {
  return database.engine === 'sqlite' ? work(database) : work(database);
}
