import { ConfigurationError } from '@gatehousejs/core';
import type { SqliteDatabase } from '../database.js';
import { MIGRATIONS } from './schema.js';

/** The schema version this package writes and reads. */
export const CURRENT_VERSION: number = MIGRATIONS.length;

/** The highest applied version, or 0; reads nothing but the ledger. */
export function schemaVersion(db: SqliteDatabase): number {
  const ledger = db
    .prepare<[], { n: number }>(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'gatehouse_migrations'",
    )
    .get();
  if (!ledger || ledger.n === 0) return 0;
  const row = db
    .prepare<[], { v: number | null }>('SELECT max(version) AS v FROM gatehouse_migrations')
    .get();
  return row?.v ?? 0;
}

/** Throws a ConfigurationError unless the schema is exactly current; `store` names the caller. */
export function assertSchema(db: SqliteDatabase, store: string): void {
  const version = schemaVersion(db);
  if (version !== CURRENT_VERSION) {
    throw new ConfigurationError(
      `${store}: the database has Gatehouse schema version ${version}, expected ${CURRENT_VERSION}. Run migrateGatehouseSchema(db) first.`,
    );
  }
}
