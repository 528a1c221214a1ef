import type { AuthorizationIndex, AuthorizationRecord, AuthorizationStore } from '@gatehousejs/core';
import { authorizationListLimit } from '@gatehousejs/core/internal';
import type pg from 'pg';
import {
  type AuthorizationRow,
  INDEX_COLUMN,
  recordColumns,
  recordOf,
} from '../internal/authorizationRows.js';
import { on as onUnit } from './sql.js';

const NAME = 'PostgresAuthorizationStore';
const COLUMNS = 'id, payload, grant_id, uid, user_code, expires_at, consumed_at';

/** Upserts a record, keeping its consumed mark unless the new one carries its own; `existed` tells a replacement. */
const SAVE = `INSERT INTO gatehouse_oauth_records AS r (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
    user_code = excluded.user_code, expires_at = excluded.expires_at,
    consumed_at = COALESCE(excluded.consumed_at, r.consumed_at)
  RETURNING (xmax <> 0) AS existed`;

/**
 * An {@link AuthorizationStore} in the PostgreSQL tables
 * `gatehouse_oauth_records` and `gatehouse_oauth_keys`, shared by every
 * replica: a code issued by one is redeemed by another, a refresh token
 * rotated on one is refused as reused on every other, and the keys are the
 * first replica's. Requires `migrateGatehouseSchemaPostgres(pool)` first.
 *
 * @example
 * const authorization = new PostgresAuthorizationStore(pool);
 */
export class PostgresAuthorizationStore implements AuthorizationStore {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async save(model: string, id: string, record: AuthorizationRecord, unit?: unknown): Promise<boolean> {
    const saved = await onUnit(this.#pool, unit, NAME).query<{ existed: boolean }>(SAVE, [
      model,
      id,
      ...recordColumns(record),
    ]);
    return saved.rows[0]?.existed === true;
  }

  async find(model: string, index: AuthorizationIndex, value: string, now: number) {
    const found = await this.#pool.query<AuthorizationRow>(
      `SELECT ${COLUMNS} FROM gatehouse_oauth_records
        WHERE model = $1 AND ${INDEX_COLUMN[index]} = $2 AND (expires_at IS NULL OR expires_at > $3) LIMIT 1`,
      [model, value, now],
    );
    const row = found.rows[0];
    return row && recordOf(row);
  }

  async consume(model: string, id: string, at: number): Promise<void> {
    await this.#pool.query(
      'UPDATE gatehouse_oauth_records SET consumed_at = $1 WHERE model = $2 AND id = $3 AND consumed_at IS NULL',
      [at, model, id],
    );
  }

  async destroy(model: string, id: string, unit?: unknown): Promise<boolean> {
    const deleted = await onUnit(this.#pool, unit, NAME).query(
      'DELETE FROM gatehouse_oauth_records WHERE model = $1 AND id = $2',
      [model, id],
    );
    return (deleted.rowCount ?? 0) > 0;
  }

  async revokeByGrantId(model: string, grantId: string): Promise<void> {
    await this.#pool.query('DELETE FROM gatehouse_oauth_records WHERE model = $1 AND grant_id = $2', [
      model,
      grantId,
    ]);
  }

  async forgetGrant(grantId: string, unit?: unknown): Promise<void> {
    await onUnit(this.#pool, unit, NAME).query(
      "DELETE FROM gatehouse_oauth_records WHERE grant_id = $1 OR (model = 'Grant' AND id = $1)",
      [grantId],
    );
  }

  async list(model: string, now: number, limit?: number) {
    const rows = await this.#pool.query<AuthorizationRow>(
      `SELECT ${COLUMNS} FROM gatehouse_oauth_records
        WHERE model = $1 AND (expires_at IS NULL OR expires_at > $2) ORDER BY id COLLATE "C" LIMIT $3`,
      [model, now, authorizationListLimit(limit)],
    );
    return rows.rows.map(recordOf);
  }

  async purgeExpired(now: number): Promise<number> {
    const deleted = await this.#pool.query('DELETE FROM gatehouse_oauth_records WHERE expires_at <= $1', [
      now,
    ]);
    return deleted.rowCount ?? 0;
  }

  async keyOf(name: string, create: () => string, now: number): Promise<string> {
    const read = () =>
      this.#pool.query<{ value: string }>('SELECT value FROM gatehouse_oauth_keys WHERE name = $1', [name]);
    const known = (await read()).rows[0];
    if (known) return known.value;
    const value = create();
    await this.#pool.query(
      'INSERT INTO gatehouse_oauth_keys (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, value, now],
    );
    return (await read()).rows[0]?.value ?? value;
  }
}
