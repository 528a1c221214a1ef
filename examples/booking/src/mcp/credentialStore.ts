import type { CredentialRecord, CredentialStore } from '@gatehouse/core';
import type { SqliteCredentialStore, SqliteDatabase } from '@gatehouse/stores';

/**
 * The SQLite credential store plus each credential's toolset, kept in
 * `credential_toolsets` beside `gatehouse_credentials` (whose schema has no
 * toolset column), so a token minted with `--toolset compact` keeps it.
 */
export class ToolsetCredentialStore implements CredentialStore {
  readonly #insertToolset;
  readonly #readToolset;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly inner: SqliteCredentialStore,
  ) {
    this.#insertToolset = db.prepare<[string, string]>(
      'INSERT INTO credential_toolsets (credential_id, toolset) VALUES (?, ?)',
    );
    this.#readToolset = db.prepare<[string], { toolset: string }>(
      'SELECT toolset FROM credential_toolsets WHERE credential_id = ?',
    );
  }

  #withToolset(record: CredentialRecord | undefined): CredentialRecord | undefined {
    if (!record) return undefined;
    return { ...record, toolset: this.#readToolset.get(record.id)?.toolset ?? null };
  }

  async insert(record: CredentialRecord): Promise<void> {
    this.db
      .transaction(() => {
        this.inner.insertSync(record);
        if (record.toolset) this.#insertToolset.run(record.id, record.toolset);
      })
      .immediate();
  }

  async findByTokenHash(tokenHash: string): Promise<CredentialRecord | undefined> {
    return this.#withToolset(this.inner.findByTokenHashSync(tokenHash));
  }

  async findById(id: string): Promise<CredentialRecord | undefined> {
    return this.#withToolset(this.inner.findByIdSync(id));
  }

  async revoke(id: string, at: number): Promise<boolean> {
    return this.inner.revokeSync(id, at);
  }
}
