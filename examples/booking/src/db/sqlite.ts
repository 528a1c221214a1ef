import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryRateBucketStore } from '@gatehousejs/core';
import { createSqliteStores, openDatabase, type SqliteDatabase } from '@gatehousejs/stores';
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
 */
export function openSqliteBooking(file: string, now: number): SqliteBookingDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = openDatabase(file, { busyTimeoutMs: 5_000 });
  let readDb: SqliteDatabase | undefined;
  try {
    // Gatehouse's tables first: a product migration moves the authorization server's rows into them
    const sqliteStores = createSqliteStores(db);
    migrateProductSchema(db, now);
    readDb = openReader(file, db);
    const kysely = kyselyOver(db);
    const stores: BookingStores<SqliteDatabase> = {
      ...sqliteStores,
      // the purge writes on the handle: never inside another call's open unit of work
      purgeExpired: (at) => sqliteStores.lock.run(() => sqliteStores.purgeExpired(at)),
      ping: async () => {
        db.prepare('SELECT 1').get();
      },
    };
    const writeIn = (handle: SqliteDatabase): BookingDb => {
      if (handle !== db) throw new Error('writeIn: the handle is not this database’s unit of work.');
      return kysely;
    };
    const reader = readDb === db ? kysely : kyselyOver(readDb);
    const close = closer(db, readDb);
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
    closer(db, readDb)();
    throw error;
  }
}

/** Closes the read connection, then the write handle; idempotent. */
function closer(db: SqliteDatabase, readDb: SqliteDatabase | undefined): () => void {
  return () => {
    if (readDb?.open && readDb !== db) readDb.close();
    if (db.open) db.close();
  };
}
