import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryRateBucketStore } from '@gatehousejs/core';
import {
  configureDatabase,
  createSqliteStores,
  openDatabase,
  type SqliteDatabase,
  type SqliteStores,
} from '@gatehousejs/stores';
import { Kysely, SqliteDialect } from 'kysely';
import type { BookingStores, SqliteBookingDatabase } from './database.js';
import { migrateProductSchema } from './schema.js';
import { cachingPrepare } from './statementCache.js';
import type { BookingDb, BookingTables } from './tables.js';

/** A Kysely over a better-sqlite3 handle whose statements are prepared once per process. */
function kyselyOver(db: SqliteDatabase): BookingDb {
  return new Kysely<BookingTables>({ dialect: new SqliteDialect({ database: cachingPrepare(db) }) });
}

/** The read connection: read-only on a file (committed data only), the write handle itself in memory. */
function openReader(file: string, db: SqliteDatabase): SqliteDatabase {
  return file === ':memory:' ? db : openDatabase(file, { readonly: true, busyTimeoutMs: 5_000 });
}

/**
 * Opens (or creates) the SQLite file, migrates the product's tables and
 * Gatehouse's (both idempotent), and builds the stores on the same handle,
 * so a booking, its audit row and its replay record commit together. The
 * unit of work's handle is that handle; `writeIn` gives the Kysely over it.
 * Reads outside units of work go through a second, read-only connection.
 * Migrations wait for another starting process in SQLite's busy handler;
 * after them the write handle's busy timeout is 0: every later write runs
 * in a unit of work or a store, which wait on timers, so none runs a
 * `PRAGMA` to switch the handler off. Rate takes and replay claims commit
 * on the stores' bookkeeping connection without an fsync of their own.
 */
export function openSqliteBooking(file: string, now: number): SqliteBookingDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = openDatabase(file, { busyTimeoutMs: 5_000 });
  let readDb: SqliteDatabase | undefined;
  let built: SqliteStores | undefined;
  try {
    // Gatehouse's tables first: a product migration moves the authorization server's rows into them
    const sqliteStores = createSqliteStores(db);
    built = sqliteStores;
    migrateProductSchema(db, now);
    configureDatabase(db, { busyTimeoutMs: 0 });
    readDb = openReader(file, db);
    const kysely = kyselyOver(db);
    const stores: BookingStores<SqliteDatabase> = {
      ...sqliteStores,
      // under the lock (never inside another call's open unit of work), waiting on timers
      purgeExpired: (at) => sqliteStores.housekeeping(at),
      ping: async () => {
        db.prepare('SELECT 1').get();
      },
    };
    const writeIn = (handle: SqliteDatabase): BookingDb => {
      if (handle !== db) throw new Error('writeIn: the handle is not this database’s unit of work.');
      return kysely;
    };
    const reader = readDb === db ? kysely : kyselyOver(readDb);
    const close = closer(db, readDb, sqliteStores);
    return {
      engine: 'sqlite',
      file,
      db,
      kysely,
      reader,
      stores,
      rateStores: { read: new MemoryRateBucketStore() },
      locksRows: false,
      savepoints: true,
      writeIn,
      write: (work) => sqliteStores.unitOfWork.run((handle) => work(writeIn(handle), handle)),
      close: async () => close(),
    };
  } catch (error) {
    closer(db, readDb, built)();
    throw error;
  }
}

/** Closes the read connection, the stores' bookkeeping connection, then the write handle; idempotent. */
function closer(
  db: SqliteDatabase,
  readDb: SqliteDatabase | undefined,
  stores: SqliteStores | undefined,
): () => void {
  return () => {
    if (readDb?.open && readDb !== db) readDb.close();
    stores?.close();
    if (db.open) db.close();
  };
}
