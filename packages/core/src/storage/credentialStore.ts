/** A stored MCP credential (I5): only the hash of the token is kept. */
export interface CredentialRecord {
  readonly id: string;
  /** SHA-256 of the token. */
  readonly tokenHash: string;
  /** The tenants the credential may act in; one for most credentials (I3). */
  readonly tenantIds: readonly string[];
  readonly creatorId: string;
  /** Rights granted at creation, capped by the creator's rights then (I4). */
  readonly rights: readonly string[];
  readonly clientLabel: string;
  /** A named toolset this credential sees (e.g. a compact one for small models); null for all tools. */
  readonly toolset?: string | null;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
}

/**
 * Credentials by token hash. `revoke` reports whether it changed anything.
 * Given a unit of work's handle (`unit`), `insert` and `revoke` write in
 * that transaction, so the change commits with its audit row (stores on the
 * host's database); the memory store ignores it.
 */
export interface CredentialStore {
  insert(record: CredentialRecord, unit?: unknown): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<CredentialRecord | undefined>;
  findById(id: string): Promise<CredentialRecord | undefined>;
  revoke(id: string, at: number, unit?: unknown): Promise<boolean>;
}

/** Which credentials {@link CredentialDirectory.list} returns, newest first (by `createdAt`, then `id`). */
export interface CredentialQuery {
  /** Credentials whose tenant list holds this tenant; with `elsewhere`, those whose list does not. */
  readonly tenantId: string;
  readonly elsewhere?: boolean;
  /** Only credentials this person created. */
  readonly creatorId?: string;
  readonly limit: number;
}

/** Lists stored credentials, for a page that shows them (never their token, which is not stored). */
export interface CredentialDirectory {
  list(query: CredentialQuery): Promise<readonly CredentialRecord[]>;
}

/** The most credentials one {@link CredentialDirectory.list} call returns. */
export const MAX_CREDENTIAL_LIST = 1_000;

/** `limit` when it is an integer from 0 to 1000; else a RangeError, the same in every bundled store. */
export function listLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_CREDENTIAL_LIST) {
    throw new RangeError(
      `CredentialDirectory.list: limit must be an integer from 0 to ${MAX_CREDENTIAL_LIST}; got ${String(limit)}.`,
    );
  }
  return limit;
}

/** A {@link CredentialStore} in process memory. */
export class MemoryCredentialStore implements CredentialStore, CredentialDirectory {
  readonly #byHash = new Map<string, CredentialRecord>();
  readonly #byId = new Map<string, CredentialRecord>();

  async insert(record: CredentialRecord, _unit?: unknown): Promise<void> {
    if (this.#byHash.has(record.tokenHash) || this.#byId.has(record.id)) {
      throw new Error('A credential with this id or token already exists.');
    }
    const frozen = Object.freeze({ ...record });
    this.#byHash.set(record.tokenHash, frozen);
    this.#byId.set(record.id, frozen);
  }

  async findByTokenHash(tokenHash: string): Promise<CredentialRecord | undefined> {
    return this.#byHash.get(tokenHash);
  }

  async findById(id: string): Promise<CredentialRecord | undefined> {
    return this.#byId.get(id);
  }

  async revoke(id: string, at: number, _unit?: unknown): Promise<boolean> {
    const record = this.#byId.get(id);
    if (!record || record.revokedAt !== null) return false;
    const revoked = Object.freeze({ ...record, revokedAt: at });
    this.#byId.set(id, revoked);
    this.#byHash.set(record.tokenHash, revoked);
    return true;
  }

  async list(query: CredentialQuery): Promise<readonly CredentialRecord[]> {
    const limit = listLimit(query.limit);
    return [...this.#byId.values()]
      .filter(
        (record) =>
          record.tenantIds.includes(query.tenantId) !== (query.elsewhere === true) &&
          (query.creatorId === undefined || record.creatorId === query.creatorId),
      )
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, limit);
  }
}
