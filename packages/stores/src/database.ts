import { ConfigurationError } from '@gatehousejs/core';
import Database from 'better-sqlite3';
import { rememberBusyTimeout } from './internal/lockWait.js';

/** A better-sqlite3 connection; the stores share it with the host's own tables. */
export type SqliteDatabase = Database.Database;

/** Options of {@link openDatabase} and {@link configureDatabase}. */
export interface DatabaseOptions {
  /**
   * SQLite's native busy timeout: how long a statement the host runs itself
   * (its own writes, the stores' `…Sync` methods, `purgeExpired`) blocks the
   * thread, event loop included, waiting for another connection's write lock
   * before it fails with `SQLITE_BUSY`. Gatehouse's async store writes and its
   * unit of work never wait in it: they turn it off around each attempt and
   * wait on timers instead, up to their own `lockWaitMs`. Default 5,000; 0
   * makes the host's statements fail at once rather than stall the server.
   * The stores remember the value set here, so a unit of work on a handle
   * with 0 runs no `PRAGMA` (with a non-zero value it runs two, to turn the
   * handler off around `BEGIN IMMEDIATE`); change it by calling
   * {@link configureDatabase} again, not with a `PRAGMA` of the host's own.
   */
  readonly busyTimeoutMs?: number;
  /**
   * `full` (default) syncs the write-ahead log on every commit, so a commit
   * survives power loss; `normal` survives a process crash but may lose the
   * last commits on power loss (the host's write and its replay record are lost together).
   */
  readonly synchronous?: 'full' | 'normal';
  /**
   * {@link openDatabase} only: opens a read-only connection to a file another
   * connection writes, in WAL mode. Build the host's read services on it: a
   * read there sees only committed data (never another call's open unit of
   * work on the write handle) and never waits for a writer, in this process
   * or another. Refuses `:memory:` and a file not in WAL mode.
   */
  readonly readonly?: boolean;
}

/**
 * Puts a connection in the mode the stores rely on: write-ahead logging (readers
 * never block the writer, several processes may share the file), a busy
 * timeout for the host's own statements, foreign keys on. On a read-only
 * handle it sets no journal mode and refuses a file not in WAL mode. Refuses
 * a negative or non-integer timeout.
 *
 * @example
 * configureDatabase(hostDb, { busyTimeoutMs: 2_000 });
 */
export function configureDatabase(db: SqliteDatabase, options: DatabaseOptions = {}): SqliteDatabase {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new ConfigurationError('configureDatabase: busyTimeoutMs must be a non-negative integer.');
  }
  const synchronous = options.synchronous ?? 'full';
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new ConfigurationError('configureDatabase: synchronous must be "full" or "normal".');
  }
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  rememberBusyTimeout(db, busyTimeoutMs);
  if (db.readonly) requireWal(db);
  else if (!db.memory) db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  return db;
}

/** A reader needs WAL: in rollback-journal mode it would wait for every writer. */
function requireWal(db: SqliteDatabase): void {
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') {
    throw new ConfigurationError(
      'configureDatabase: a read-only connection needs a file in WAL mode; open it for writing with openDatabase first.',
    );
  }
}

/**
 * Opens (or creates) a SQLite file configured by {@link configureDatabase}.
 * The caller owns the handle and closes it; run `migrateGatehouseSchema` before
 * building stores on it. With `readonly: true` it opens an existing file for
 * reads only (the host's read services; never the stores).
 *
 * @example
 * const db = openDatabase('app.db');
 * const reads = openDatabase('app.db', { readonly: true });
 */
export function openDatabase(path: string, options: DatabaseOptions = {}): SqliteDatabase {
  const readonly = options.readonly === true;
  if (readonly && (path === '' || path === ':memory:' || path.startsWith('file::memory:'))) {
    throw new ConfigurationError('openDatabase: a read-only connection needs a database file, not :memory:.');
  }
  const db = readonly ? new Database(path, { readonly: true, fileMustExist: true }) : new Database(path);
  try {
    return configureDatabase(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}
