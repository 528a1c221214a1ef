import type {
  CredentialDirectory,
  CredentialQuery,
  CredentialRecord,
  CredentialStore,
} from '@gatehousejs/core';
import { listLimit } from '@gatehousejs/core/internal';
import type pg from 'pg';
import { type CredentialColumns, credentialOf } from '../internal/rows.js';
import { on, type PreparedStatement, prepared } from './sql.js';

const NAME = 'PostgresCredentialStore';

const INSERT = `INSERT INTO gatehouse_credentials (id, token_hash, tenant_ids, creator_id, rights, client_label,
    toolset, created_at, expires_at, revoked_at)
  VALUES ($1, $2, $3::text[], $4, $5::text[], $6, $7, $8, $9, $10)
  ON CONFLICT DO NOTHING`;

const COLUMNS =
  'id, token_hash, tenant_ids, creator_id, rights, client_label, toolset, created_at, expires_at, revoked_at';
const BY_TOKEN_HASH = prepared(`SELECT ${COLUMNS} FROM gatehouse_credentials WHERE token_hash = $1`);
const BY_ID = prepared(`SELECT ${COLUMNS} FROM gatehouse_credentials WHERE id = $1`);

/** The listing for one shape (in or outside the tenant, by creator or not); values are parameters. */
const listSql = (elsewhere: boolean, byCreator: boolean): string =>
  `SELECT ${COLUMNS} FROM gatehouse_credentials
   WHERE ${elsewhere ? 'NOT ' : ''}($1 = ANY(tenant_ids))${byCreator ? ' AND creator_id = $3' : ''}
   ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $2`;

/**
 * A {@link CredentialStore} in the PostgreSQL table `gatehouse_credentials`
 * (I4, I5): only token hashes are stored, and every lookup reads the table
 * (no cache), so a revocation on one replica holds on all of them at their
 * next call. `insert` refuses a second credential with the same id or token
 * hash; `revoke` is one compare-and-set `UPDATE … WHERE revoked_at IS NULL`,
 * so exactly one revocation reports a change. `list` gives a tenant's
 * credentials, or those outside it, newest first (ids compared byte-wise),
 * at most 1000 (a RangeError above). Requires
 * `migrateGatehouseSchemaPostgres(pool)` first.
 *
 * @example
 * const credentials = new PostgresCredentialStore(pool);
 */
export class PostgresCredentialStore implements CredentialStore, CredentialDirectory {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async insert(record: CredentialRecord, unit?: unknown): Promise<void> {
    const inserted = await on(this.#pool, unit, NAME).query(INSERT, [
      record.id,
      record.tokenHash,
      [...record.tenantIds],
      record.creatorId,
      [...record.rights],
      record.clientLabel,
      record.toolset ?? null,
      record.createdAt,
      record.expiresAt,
      record.revokedAt,
    ]);
    if (inserted.rowCount !== 1) throw new Error('A credential with this id or token already exists.');
  }

  async findByTokenHash(tokenHash: string): Promise<CredentialRecord | undefined> {
    return this.#one(BY_TOKEN_HASH, tokenHash);
  }

  async findById(id: string): Promise<CredentialRecord | undefined> {
    return this.#one(BY_ID, id);
  }

  async revoke(id: string, at: number, unit?: unknown): Promise<boolean> {
    const revoked = await on(this.#pool, unit, NAME).query(
      'UPDATE gatehouse_credentials SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
      [at, id],
    );
    return revoked.rowCount === 1;
  }

  async list(query: CredentialQuery): Promise<readonly CredentialRecord[]> {
    const limit = listLimit(query.limit);
    const values: unknown[] = [query.tenantId, limit];
    if (query.creatorId !== undefined) values.push(query.creatorId);
    const found = await this.#pool.query<CredentialColumns<string[]>>(
      listSql(query.elsewhere === true, query.creatorId !== undefined),
      values,
    );
    return found.rows.map(credentialOf);
  }

  async #one(statement: PreparedStatement, value: string): Promise<CredentialRecord | undefined> {
    const found = await this.#pool.query<CredentialColumns<string[]>>({ ...statement, values: [value] });
    const row = found.rows[0];
    return row ? credentialOf(row) : undefined;
  }
}
