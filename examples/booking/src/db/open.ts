import type { BookingDatabase } from './database.js';
import { openSqliteBooking } from './sqlite.js';

/** Where the product's data lives: a SQLite file, or a PostgreSQL database by URL. */
export type DatabaseConfig = { readonly file: string } | { readonly databaseUrl: string };

/**
 * Opens the product's database on either engine, migrated (product tables
 * and Gatehouse's stores) and ready: a SQLite file (created when missing), or
 * PostgreSQL when a `databaseUrl` is given (the `pg` driver is loaded only then).
 */
export async function openBookingDatabase(
  config: DatabaseConfig,
  now: number = Date.now(),
): Promise<BookingDatabase> {
  if ('databaseUrl' in config) {
    const { openPostgresBooking } = await import('./postgres.js');
    return openPostgresBooking(config.databaseUrl, now);
  }
  return openSqliteBooking(config.file, now);
}

export type {
  BookingDatabase,
  BookingEngine,
  BookingStores,
  PostgresBookingDatabase,
  SqliteBookingDatabase,
} from './database.js';
