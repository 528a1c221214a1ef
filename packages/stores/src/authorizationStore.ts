import type { AuthorizationIndex, AuthorizationRecord, AuthorizationStore } from '@gatehousejs/core';
import { authorizationListLimit } from '@gatehousejs/core/internal';
import type { SqliteDatabase } from './database.js';
import {
  type AuthorizationRow,
  INDEX_COLUMN,
  recordColumns,
  recordOf,
} from './internal/authorizationRows.js';
import { assertSchema } from './internal/schemaVersion.js';
import { type LockOptions, writer } from './internal/writes.js';

const COLUMNS = 'id, payload, grant_id, uid, user_code, expires_at, consumed_at';
/** A record saved again keeps its consumed mark unless the new one carries its own. */
const SAVE = `INSERT INTO gatehouse_oauth_records (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
    user_code = excluded.user_code, expires_at = excluded.expires_at,
    consumed_at = COALESCE(excluded.consumed_at, gatehouse_oauth_records.consumed_at)`;

function prepare(db: SqliteDatabase) {
  const exists = db.prepare<[string, string], { n: number }>(
    'SELECT 1 AS n FROM gatehouse_oauth_records WHERE model = ? AND id = ?',
  );
  const upsert = db.prepare(SAVE);
  const finders = Object.fromEntries(
    Object.entries(INDEX_COLUMN).map(([index, column]) => [
      index,
      db.prepare<[string, string, number], AuthorizationRow>(
        `SELECT ${COLUMNS} FROM gatehouse_oauth_records WHERE model = ? AND ${column} = ? AND (expires_at IS NULL OR expires_at > ?) LIMIT 1`,
      ),
    ]),
  ) as Record<
    AuthorizationIndex,
    import('better-sqlite3').Statement<[string, string, number], AuthorizationRow>
  >;
  const keyInsert = db.prepare<[string, string, number]>(
    'INSERT INTO gatehouse_oauth_keys (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
  );
  const keyRead = db.prepare<[string], { value: string }>(
    'SELECT value FROM gatehouse_oauth_keys WHERE name = ?',
  );
  return {
    save: db.transaction((model: string, id: string, record: AuthorizationRecord): boolean => {
      const replaced = exists.get(model, id) !== undefined;
      upsert.run(model, id, ...recordColumns(record));
      return replaced;
    }),
    find: finders,
    consume: db.prepare<[number, string, string]>(
      'UPDATE gatehouse_oauth_records SET consumed_at = ? WHERE model = ? AND id = ? AND consumed_at IS NULL',
    ),
    destroy: db.prepare<[string, string]>('DELETE FROM gatehouse_oauth_records WHERE model = ? AND id = ?'),
    revoke: db.prepare<[string, string]>(
      'DELETE FROM gatehouse_oauth_records WHERE model = ? AND grant_id = ?',
    ),
    forget: db.prepare<[string, string]>(
      "DELETE FROM gatehouse_oauth_records WHERE grant_id = ? OR (model = 'Grant' AND id = ?)",
    ),
    list: db.prepare<[string, number, number], AuthorizationRow>(
      `SELECT ${COLUMNS} FROM gatehouse_oauth_records WHERE model = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY id LIMIT ?`,
    ),
    purge: db.prepare<[number]>('DELETE FROM gatehouse_oauth_records WHERE expires_at <= ?'),
    keyRead,
    keyOf: db.transaction((name: string, value: string, now: number): string => {
      keyInsert.run(name, value, now);
      return keyRead.get(name)?.value ?? value;
    }),
  };
}

/**
 * An {@link AuthorizationStore} in `gatehouse_oauth_records` and
 * `gatehouse_oauth_keys`: what an OAuth authorization server (oidc-provider)
 * keeps, on the database file every replica opens, so a code issued by one
 * process is redeemed by another and keys are generated once. An expired
 * record is never read; `purgeExpired` deletes them (housekeeping, not the
 * request path).
 *
 * @example
 * const authorization = new SqliteAuthorizationStore(db);
 */
export class SqliteAuthorizationStore implements AuthorizationStore {
  readonly #sql: ReturnType<typeof prepare>;
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: LockOptions = {}) {
    this.#write = writer(db, 'SqliteAuthorizationStore', options);
    assertSchema(db, 'SqliteAuthorizationStore');
    this.#sql = prepare(db);
  }

  save(model: string, id: string, record: AuthorizationRecord, unit?: unknown): Promise<boolean> {
    return this.#write(unit, () =>
      unit === undefined ? this.#sql.save.immediate(model, id, record) : this.#sql.save(model, id, record),
    );
  }

  async find(model: string, index: AuthorizationIndex, value: string, now: number) {
    const row = this.#sql.find[index].get(model, value, now);
    return row && recordOf(row);
  }

  async consume(model: string, id: string, at: number): Promise<void> {
    await this.#write(undefined, () => this.#sql.consume.run(at, model, id));
  }

  destroy(model: string, id: string, unit?: unknown): Promise<boolean> {
    return this.#write(unit, () => this.#sql.destroy.run(model, id).changes > 0);
  }

  async revokeByGrantId(model: string, grantId: string): Promise<void> {
    await this.#write(undefined, () => this.#sql.revoke.run(model, grantId));
  }

  async forgetGrant(grantId: string, unit?: unknown): Promise<void> {
    await this.#write(unit, () => this.#sql.forget.run(grantId, grantId));
  }

  async list(model: string, now: number, limit?: number) {
    return this.#sql.list.all(model, now, authorizationListLimit(limit)).map(recordOf);
  }

  /** Synchronous {@link AuthorizationStore.purgeExpired}, for `createSqliteStores().purgeExpired`. */
  purgeExpiredSync(now: number): number {
    return this.#sql.purge.run(now).changes;
  }

  purgeExpired(now: number): Promise<number> {
    return this.#write(undefined, () => this.purgeExpiredSync(now));
  }

  async keyOf(name: string, create: () => string, now: number): Promise<string> {
    const known = this.#sql.keyRead.get(name);
    if (known) return known.value;
    const value = create();
    return this.#write(undefined, () => this.#sql.keyOf.immediate(name, value, now));
  }
}
