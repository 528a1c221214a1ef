// #region product-database
import {
  createSqliteStores,
  openDatabase,
  type SqliteDatabase,
  type SqliteStores,
} from '@gatehousejs/stores';

/** The product's database and Gatehouse's stores on the same handle. */
export interface ProductDatabase {
  readonly db: SqliteDatabase;
  readonly stores: SqliteStores;
}

/** Opens the product's file, creates its tables, then Gatehouse's (idempotent). */
export function openProductDatabase(file: string): ProductDatabase {
  const db = openDatabase(file, { busyTimeoutMs: 5_000 });
  db.exec(`CREATE TABLE IF NOT EXISTS bookings (
    id TEXT PRIMARY KEY,
    customer TEXT NOT NULL,
    slot TEXT NOT NULL UNIQUE
  )`);
  const stores = createSqliteStores(db);
  return { db, stores };
}
// #endregion product-database
