import { ConfigurationError } from '@gatehousejs/core';
import Database from 'better-sqlite3';

/** A better-sqlite3 connection; the stores share it with the host's own tables. */
export type SqliteDatabase = Database.Database;

/** Options of {@link openDatabase} and {@link configureDatabase}. */
export interface DatabaseOptions {
  /**
   * How long a statement waits for another connection's write lock before it
   * fails with `SQLITE_BUSY` (the store call then rejects: fail closed). Default 5,000.
   */
  readonly busyTimeoutMs?: number;
  /**
   * `full` (default) syncs the write-ahead log on every commit, so a commit
   * survives power loss; `normal` survives a process crash but may lose the
   * last commits on power loss (the host's write and its replay record are lost together).
   */
  readonly synchronous?: 'full' | 'normal';
}

/**
 * Puts a connection in the mode the stores rely on: write-ahead logging (readers
 * never block the writer, several processes may share the file), a busy
 * timeout, foreign keys on. Refuses a negative or non-integer timeout.
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
  if (!db.memory) db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  return db;
}

/**
 * Opens (or creates) a SQLite file configured by {@link configureDatabase}.
 * The caller owns the handle and closes it; run `migrateGatehouseSchema` before
 * building stores on it.
 *
 * @example
 * const db = openDatabase('app.db');
 */
export function openDatabase(path: string, options: DatabaseOptions = {}): SqliteDatabase {
  const db = new Database(path);
  try {
    return configureDatabase(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}
