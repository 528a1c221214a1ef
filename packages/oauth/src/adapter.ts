import type { AuthorizationStore } from '@gatehousejs/core';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/**
 * One model's storage as oidc-provider calls it (its `Adapter`), typed here
 * so the package's declarations need no oidc-provider types.
 */
export interface OAuthModelAdapter {
  upsert(id: string, payload: Readonly<Record<string, unknown>>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Record<string, unknown> | undefined>;
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
  findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** Seconds since the epoch, as oidc-provider writes times. */
export const epochSeconds = (ms: number): number => Math.floor(ms / 1000);

/** One model's records (`Grant`, `AuthorizationCode`, `RefreshToken`, `Session`, `Client`, …). */
class PayloadAdapter implements Adapter {
  readonly #store: AuthorizationStore;
  readonly #model: string;
  readonly #now: () => number;

  constructor(store: AuthorizationStore, model: string, now: () => number) {
    this.#store = store;
    this.#model = model;
    this.#now = now;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    await this.#store.save(this.#model, id, {
      payload: JSON.stringify(payload),
      grantId: text(payload.grantId),
      uid: text(payload.uid),
      userCode: text(payload.userCode),
      expiresAt: expiresIn ? this.#now() + expiresIn * 1000 : undefined,
      // a payload saved again keeps its consumed mark (oidc-provider writes it as epoch seconds)
      consumedAt: typeof payload.consumed === 'number' ? payload.consumed * 1000 : undefined,
    });
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.#findBy('id', id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#findBy('uid', uid);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#findBy('userCode', userCode);
  }

  consume(id: string): Promise<void> {
    return this.#store.consume(this.#model, id, this.#now());
  }

  async destroy(id: string): Promise<void> {
    await this.#store.destroy(this.#model, id);
  }

  revokeByGrantId(grantId: string): Promise<void> {
    return this.#store.revokeByGrantId(this.#model, grantId);
  }

  async #findBy(index: 'id' | 'uid' | 'userCode', value: string): Promise<AdapterPayload | undefined> {
    const record = await this.#store.find(this.#model, index, value, this.#now());
    if (!record) return undefined;
    const payload = JSON.parse(record.payload) as AdapterPayload;
    return record.consumedAt === undefined
      ? payload
      : { ...payload, consumed: epochSeconds(record.consumedAt) };
  }
}

/**
 * oidc-provider's storage on the Gatehouse stores' `AuthorizationStore`
 * (SQLite or PostgreSQL, the product's database): every model (grants,
 * codes, refresh and access tokens, sessions, interactions, registered
 * clients) is one record keyed by model and id, with its grant id, uid and
 * user code indexed. An expired record is never returned, and the stores'
 * housekeeping purge deletes it. Nothing is kept in process memory, so
 * replicas share every grant.
 */
export function oauthAdapter(
  store: AuthorizationStore,
  now: () => number,
): (model: string) => OAuthModelAdapter {
  return (model) => new PayloadAdapter(store, model, now) as OAuthModelAdapter;
}
