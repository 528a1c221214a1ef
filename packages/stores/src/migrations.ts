import { ConfigurationError } from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { MIGRATIONS } from './internal/schema.js';
import { CURRENT_VERSION, schemaVersion } from './internal/schemaVersion.js';

/** The schema version this package writes and reads. */
export const GATEHOUSE_SCHEMA_VERSION: number = CURRENT_VERSION;

/** What {@link migrateGatehouseSchema} did. */
export interface MigrationReport {
  /** The schema version before the call (0 for a database without Gatehouse tables). */
  readonly from: number;
  /** The schema version after the call. */
  readonly to: number;
  /** Versions applied by this call, oldest first; empty when already current. */
  readonly applied: readonly number[];
}

const CREATE_LEDGER = `CREATE TABLE IF NOT EXISTS gatehouse_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at INTEGER NOT NULL
)`;

/**
 * Creates or upgrades the `gatehouse_` tables, recording each step in
 * `gatehouse_migrations`. Idempotent and safe when several processes start
 * at once: it runs in one IMMEDIATE transaction, so one process applies and
 * the others find the work done. Refuses (ConfigurationError) a database
 * written by a newer schema than this package knows.
 *
 * @example
 * migrateGatehouseSchema(db); // then createSqliteStores(db)
 */
export function migrateGatehouseSchema(db: SqliteDatabase, now: number = Date.now()): MigrationReport {
  const run = db.transaction((): MigrationReport => {
    db.exec(CREATE_LEDGER);
    const from = schemaVersion(db);
    if (from > GATEHOUSE_SCHEMA_VERSION) {
      throw new ConfigurationError(
        `migrateGatehouseSchema: the database has Gatehouse schema version ${from}; this package knows up to ${GATEHOUSE_SCHEMA_VERSION}. Upgrade @gatehousejs/stores.`,
      );
    }
    const record = db.prepare<[number, string, number]>(
      'INSERT INTO gatehouse_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    );
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now);
      applied.push(migration.version);
    }
    return { from, to: Math.max(from, GATEHOUSE_SCHEMA_VERSION), applied };
  });
  return run.immediate();
}
