import type {
  CredentialDirectory,
  CredentialQuery,
  CredentialRecord,
  CredentialStore,
} from '@gatehousejs/core';
import { listLimit } from '@gatehousejs/core/internal';
import type { SqliteDatabase } from './database.js';
import { type CredentialColumns, credentialOf } from './internal/rows.js';
import { assertSchema } from './internal/schemaVersion.js';
import { type LockOptions, writer } from './internal/writes.js';

const toRow = (record: CredentialRecord): CredentialColumns<string> => ({
  id: record.id,
  token_hash: record.tokenHash,
  tenant_ids: JSON.stringify(record.tenantIds),
  creator_id: record.creatorId,
  rights: JSON.stringify(record.rights),
  client_label: record.clientLabel,
  toolset: record.toolset ?? null,
  created_at: record.createdAt,
  expires_at: record.expiresAt,
  revoked_at: record.revokedAt,
});

interface ListParams {
  readonly tenant: string;
  readonly creator: string | null;
  readonly limit: number;
}

/** The listing for one shape (in or outside the tenant, by creator or not); values are parameters. */
const prepareList = (db: SqliteDatabase, elsewhere: boolean, byCreator: boolean) =>
  db.prepare<ListParams, CredentialColumns<string>>(
    `SELECT * FROM gatehouse_credentials
     WHERE ${elsewhere ? 'NOT ' : ''}EXISTS (SELECT 1 FROM json_each(tenant_ids) WHERE value = @tenant)
       ${byCreator ? 'AND creator_id = @creator' : ''}
     ORDER BY created_at DESC, id DESC LIMIT @limit`,
  );

function prepareCredentials(db: SqliteDatabase) {
  return {
    lists: {
      in: prepareList(db, false, false),
      inByCreator: prepareList(db, false, true),
      elsewhere: prepareList(db, true, false),
      elsewhereByCreator: prepareList(db, true, true),
    },
    insert: db.prepare<CredentialColumns<string>>(
      `INSERT INTO gatehouse_credentials (id, token_hash, tenant_ids, creator_id, rights, client_label,
         toolset, created_at, expires_at, revoked_at)
       VALUES (@id, @token_hash, @tenant_ids, @creator_id, @rights, @client_label, @toolset, @created_at,
         @expires_at, @revoked_at)
       ON CONFLICT DO NOTHING`,
    ),
    byHash: db.prepare<[string], CredentialColumns<string>>(
      'SELECT * FROM gatehouse_credentials WHERE token_hash = ?',
    ),
    byId: db.prepare<[string], CredentialColumns<string>>('SELECT * FROM gatehouse_credentials WHERE id = ?'),
    revoke: db.prepare<[number, string]>(
      'UPDATE gatehouse_credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    ),
  };
}

/**
 * A {@link CredentialStore} in `gatehouse_credentials` (I4, I5): only token
 * hashes are stored. `insert` refuses a second credential with the same id or
 * token hash; `revoke` is one compare-and-set `UPDATE … WHERE revoked_at IS
 * NULL`, so exactly one revocation reports a change and its time is the one
 * kept. Expired and revoked credentials stay readable (admission refuses them;
 * the admin page shows them); `list` gives a tenant's credentials, or those
 * outside it, newest first, at most 1000 (a RangeError above).
 *
 * @example
 * const credentials = new SqliteCredentialStore(db);
 */
export class SqliteCredentialStore implements CredentialStore, CredentialDirectory {
  readonly #sql: ReturnType<typeof prepareCredentials>;
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: LockOptions = {}) {
    this.#write = writer(db, 'SqliteCredentialStore', options);
    assertSchema(db, 'SqliteCredentialStore');
    this.#sql = prepareCredentials(db);
  }

  /** Synchronous {@link CredentialStore.insert}; throws on a duplicate id or token hash. */
  insertSync(record: CredentialRecord): void {
    if (this.#sql.insert.run(toRow(record)).changes !== 1) {
      throw new Error('A credential with this id or token already exists.');
    }
  }

  /** Synchronous {@link CredentialStore.findByTokenHash}. */
  findByTokenHashSync(tokenHash: string): CredentialRecord | undefined {
    const row = this.#sql.byHash.get(tokenHash);
    return row ? credentialOf(row) : undefined;
  }

  /** Synchronous {@link CredentialStore.findById}. */
  findByIdSync(id: string): CredentialRecord | undefined {
    const row = this.#sql.byId.get(id);
    return row ? credentialOf(row) : undefined;
  }

  /** Synchronous {@link CredentialStore.revoke}: true only for the call that revoked it. */
  revokeSync(id: string, at: number): boolean {
    return this.#sql.revoke.run(at, id).changes === 1;
  }

  /** Synchronous {@link CredentialDirectory.list}; throws a RangeError for a limit outside 0 to 1000. */
  listSync(query: CredentialQuery): readonly CredentialRecord[] {
    const limit = listLimit(query.limit);
    const shape =
      `${query.elsewhere === true ? 'elsewhere' : 'in'}${query.creatorId === undefined ? '' : 'ByCreator'}` as const;
    const statement = this.#sql.lists[shape];
    return statement
      .all({ tenant: query.tenantId, creator: query.creatorId ?? null, limit })
      .map(credentialOf);
  }

  insert(record: CredentialRecord, unit?: unknown): Promise<void> {
    return this.#write(unit, () => this.insertSync(record));
  }

  async findByTokenHash(tokenHash: string): Promise<CredentialRecord | undefined> {
    return this.findByTokenHashSync(tokenHash);
  }

  async findById(id: string): Promise<CredentialRecord | undefined> {
    return this.findByIdSync(id);
  }

  revoke(id: string, at: number, unit?: unknown): Promise<boolean> {
    return this.#write(unit, () => this.revokeSync(id, at));
  }

  async list(query: CredentialQuery): Promise<readonly CredentialRecord[]> {
    return this.listSync(query);
  }
}
