/**
 * An OAuth authorization server's state, shared by replicas: records of its
 * models (oidc-provider's `Grant`, `AuthorizationCode`, `RefreshToken`,
 * `AccessToken`, `Session`, `Interaction`, `Client`, …) by model and id, each
 * a JSON payload indexed by grant id, uid and user code, and its named keys
 * (signing keys, cookie keys), generated once. Times are epoch milliseconds.
 */
export interface AuthorizationRecord {
  /** The model's payload, JSON as the server wrote it. */
  readonly payload: string;
  readonly grantId?: string | undefined;
  readonly uid?: string | undefined;
  readonly userCode?: string | undefined;
  /** When the record is gone; never read after. Undefined: kept until destroyed. */
  readonly expiresAt?: number | undefined;
  /** When it was consumed (a code redeemed, a refresh token rotated); kept when the record is saved again. */
  readonly consumedAt?: number | undefined;
}

/** The index a record is found by. */
export type AuthorizationIndex = 'id' | 'uid' | 'userCode';

/**
 * Where an authorization server keeps its records and keys. `find` never
 * returns an expired record (housekeeping deletes them with `purgeExpired`);
 * `consume` marks a record once, the first time; `keyOf` stores the first
 * value any replica offers and every replica reads that one. `save`,
 * `destroy` and `forgetGrant` take a unit of work's handle, so a registered
 * client is written with its audit row and a revoked grant goes with its
 * credential's revocation.
 */
export interface AuthorizationStore {
  /** Creates or replaces a record; true when it replaced one. */
  save(model: string, id: string, record: AuthorizationRecord, unit?: unknown): Promise<boolean>;
  find(
    model: string,
    index: AuthorizationIndex,
    value: string,
    now: number,
  ): Promise<(AuthorizationRecord & { readonly id: string }) | undefined>;
  consume(model: string, id: string, at: number): Promise<void>;
  /** Deletes a record; true when there was one. */
  destroy(model: string, id: string, unit?: unknown): Promise<boolean>;
  /** Deletes the records of `model` that belong to a grant. */
  revokeByGrantId(model: string, grantId: string): Promise<void>;
  /** Deletes every record of a grant, in every model, and the grant itself; with `unit`, in that unit of work. */
  forgetGrant(grantId: string, unit?: unknown): Promise<void>;
  /** The unexpired records of a model, by id (registered clients, grants), at most `limit` (default 1,000). */
  list(
    model: string,
    now: number,
    limit?: number,
  ): Promise<readonly (AuthorizationRecord & { readonly id: string })[]>;
  /** Deletes the records expired at `now`; how many went. */
  purgeExpired(now: number): Promise<number>;
  /** The key stored under `name`, storing `create()`'s value first when there is none. */
  keyOf(name: string, create: () => string, now: number): Promise<string>;
}

/** The most records {@link AuthorizationStore.list} returns in one call. */
export const MAX_AUTHORIZATION_LIST = 10_000;

/** The limit {@link AuthorizationStore.list} applies: 1,000 when none is given, 1 to {@link MAX_AUTHORIZATION_LIST} otherwise. */
export const authorizationListLimit = (limit: number | undefined): number =>
  Math.min(Math.max(1, Math.floor(limit ?? 1_000)), MAX_AUTHORIZATION_LIST);

/** A {@link AuthorizationStore} in process memory: one process only (tests, a single instance). */
export class MemoryAuthorizationStore implements AuthorizationStore {
  readonly #records = new Map<
    string,
    AuthorizationRecord & { readonly model: string; readonly id: string }
  >();
  readonly #keys = new Map<string, string>();

  async save(model: string, id: string, record: AuthorizationRecord, _unit?: unknown): Promise<boolean> {
    const key = `${model}\u0000${id}`;
    const before = this.#records.get(key);
    const consumedAt = record.consumedAt ?? before?.consumedAt;
    this.#records.set(key, { ...record, ...(consumedAt === undefined ? {} : { consumedAt }), model, id });
    return before !== undefined;
  }

  async find(model: string, index: AuthorizationIndex, value: string, now: number) {
    const record =
      index === 'id'
        ? this.#records.get(`${model}\u0000${value}`)
        : [...this.#records.values()].find((r) => r.model === model && r[index] === value);
    if (!record || (record.expiresAt !== undefined && record.expiresAt <= now)) return undefined;
    return this.#view(record);
  }

  async consume(model: string, id: string, at: number): Promise<void> {
    const key = `${model}\u0000${id}`;
    const record = this.#records.get(key);
    if (record && record.consumedAt === undefined) this.#records.set(key, { ...record, consumedAt: at });
  }

  async destroy(model: string, id: string, _unit?: unknown): Promise<boolean> {
    return this.#records.delete(`${model}\u0000${id}`);
  }

  async revokeByGrantId(model: string, grantId: string): Promise<void> {
    for (const [key, record] of this.#records)
      if (record.model === model && record.grantId === grantId) this.#records.delete(key);
  }

  async forgetGrant(grantId: string, _unit?: unknown): Promise<void> {
    for (const [key, record] of this.#records)
      if (record.grantId === grantId || (record.model === 'Grant' && record.id === grantId))
        this.#records.delete(key);
  }

  async list(model: string, now: number, limit?: number) {
    return [...this.#records.values()]
      .filter((r) => r.model === model && (r.expiresAt === undefined || r.expiresAt > now))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, authorizationListLimit(limit))
      .map((r) => this.#view(r));
  }

  async purgeExpired(now: number): Promise<number> {
    let purged = 0;
    for (const [key, record] of this.#records)
      if (record.expiresAt !== undefined && record.expiresAt <= now && this.#records.delete(key)) purged++;
    return purged;
  }

  async keyOf(name: string, create: () => string, _now: number): Promise<string> {
    const known = this.#keys.get(name);
    if (known !== undefined) return known;
    const made = create();
    this.#keys.set(name, made);
    return made;
  }

  #view({ model: _model, ...record }: AuthorizationRecord & { readonly model: string; readonly id: string }) {
    return record;
  }
}
