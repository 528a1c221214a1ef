import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  createSqliteStores,
  openDatabase,
  type SqliteDatabase,
  type SqliteStores,
  type WriteLock,
} from '@gatehousejs/stores';
import { migrateProductSchema } from './schema.js';

/** The product's database file: its own tables, Gatehouse's stores, and the lock every writer shares. */
export interface BookingDatabase {
  readonly file: string;
  readonly db: SqliteDatabase;
  readonly stores: SqliteStores;
  /** Serializes MCP units of work, the stores' own writes and the REST API's writes on this handle. */
  readonly lock: WriteLock;
  close(): void;
}

/**
 * Opens (or creates) the database file, migrates the product's tables and
 * Gatehouse's (both idempotent), and builds the stores on the same handle,
 * so a booking, its audit row and its replay record commit together.
 */
export function openBookingDatabase(file: string, now: number = Date.now()): BookingDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = openDatabase(file, { busyTimeoutMs: 5_000 });
  try {
    migrateProductSchema(db, now);
    const stores = createSqliteStores(db);
    return {
      file,
      db,
      stores,
      lock: stores.lock,
      close: () => {
        if (db.open) db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
