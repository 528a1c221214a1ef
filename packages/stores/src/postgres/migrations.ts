import { ConfigurationError } from '@gatehousejs/core';
import type pg from 'pg';
import type { MigrationReport } from '../migrations.js';
import { POSTGRES_MIGRATIONS } from './schema.js';
import { advisoryKey } from './sql.js';

/** The PostgreSQL schema version this package writes and reads. */
export const POSTGRES_SCHEMA_VERSION: number = POSTGRES_MIGRATIONS.length;

const MIGRATION_LOCK = advisoryKey('gatehouse:migrations');

const CREATE_LEDGER = `CREATE TABLE IF NOT EXISTS gatehouse_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

async function applyAll(client: pg.PoolClient, now: number): Promise<MigrationReport> {
  await client.query(CREATE_LEDGER);
  const found = await client.query<{ v: number | null }>(
    'SELECT max(version) AS v FROM gatehouse_migrations',
  );
  const from = found.rows[0]?.v ?? 0;
  if (from > POSTGRES_SCHEMA_VERSION) {
    throw new ConfigurationError(
      `migrateGatehouseSchemaPostgres: the database has Gatehouse schema version ${from}; this package knows up to ${POSTGRES_SCHEMA_VERSION}. Upgrade @gatehousejs/stores.`,
    );
  }
  const applied: number[] = [];
  for (const migration of POSTGRES_MIGRATIONS) {
    if (migration.version <= from) continue;
    await client.query(migration.sql);
    await client.query('INSERT INTO gatehouse_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      migration.version,
      migration.name,
      now,
    ]);
    applied.push(migration.version);
  }
  return { from, to: Math.max(from, POSTGRES_SCHEMA_VERSION), applied };
}

/**
 * Creates or upgrades the `gatehouse_` tables in PostgreSQL, recording each
 * step in `gatehouse_migrations`. Idempotent, and safe when several
 * processes start at once: it runs in one transaction holding an advisory
 * lock (`pg_advisory_xact_lock`), so one process applies and the others wait,
 * then find the work done. Refuses (ConfigurationError) a database written by
 * a newer schema than this package knows; a failed step rolls back every step of the call.
 *
 * @example
 * await migrateGatehouseSchemaPostgres(pool); // createPostgresStores(pool) does it for you
 */
export async function migrateGatehouseSchemaPostgres(
  pool: pg.Pool,
  now: number = Date.now(),
): Promise<MigrationReport> {
  const client = await pool.connect();
  // A connection lost mid-migration emits `error` on the client; the pending query rejects instead.
  const ignore = (): undefined => undefined;
  client.on('error', ignore);
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const report = await applyAll(client, now);
      await client.query('COMMIT');
      return report;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    client.removeListener('error', ignore);
    client.release();
  }
}
