import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import type { BookingDb } from '../db/tables.js';

/** Seconds since the epoch, as oidc-provider writes times. */
export const epochSeconds = (ms: number): number => Math.floor(ms / 1000);

/** One model's rows (`Grant`, `AuthorizationCode`, `RefreshToken`, `Session`, `Client`, …). */
class PayloadAdapter implements Adapter {
  readonly #db: BookingDb;
  readonly #model: string;
  readonly #now: () => number;

  constructor(db: BookingDb, model: string, now: () => number) {
    this.#db = db;
    this.#model = model;
    this.#now = now;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const row = {
      payload: JSON.stringify(payload),
      grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
      uid: typeof payload.uid === 'string' ? payload.uid : null,
      user_code: typeof payload.userCode === 'string' ? payload.userCode : null,
      expires_at: expiresIn ? this.#now() + expiresIn * 1000 : null,
      // a payload saved again keeps its consumed mark (oidc-provider writes it as epoch seconds)
      consumed_at: typeof payload.consumed === 'number' ? payload.consumed * 1000 : null,
    };
    await this.#db
      .insertInto('oauth_payloads')
      .values({ model: this.#model, id, ...row })
      .onConflict((conflict) => conflict.columns(['model', 'id']).doUpdateSet(row))
      .execute();
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.#findWhere('id', id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#findWhere('uid', uid);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#findWhere('user_code', userCode);
  }

  async consume(id: string): Promise<void> {
    await this.#db
      .updateTable('oauth_payloads')
      .set({ consumed_at: this.#now() })
      .where('model', '=', this.#model)
      .where('id', '=', id)
      .where('consumed_at', 'is', null)
      .execute();
  }

  async destroy(id: string): Promise<void> {
    await this.#db
      .deleteFrom('oauth_payloads')
      .where('model', '=', this.#model)
      .where('id', '=', id)
      .execute();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.#db
      .deleteFrom('oauth_payloads')
      .where('model', '=', this.#model)
      .where('grant_id', '=', grantId)
      .execute();
  }

  async #findWhere(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
    const row = await this.#db
      .selectFrom('oauth_payloads')
      .select(['payload', 'expires_at', 'consumed_at'])
      .where('model', '=', this.#model)
      .where(column, '=', value)
      .executeTakeFirst();
    if (!row || (row.expires_at !== null && row.expires_at <= this.#now())) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return row.consumed_at === null ? payload : { ...payload, consumed: epochSeconds(row.consumed_at) };
  }
}

/**
 * oidc-provider's storage on the product's database, the same Kysely code on
 * SQLite and PostgreSQL: every model (grants, codes, refresh and access
 * tokens, sessions, interactions, registered clients) is one row of
 * `oauth_payloads` keyed by model and id, with its grant id, uid and user
 * code indexed. An expired row is never returned, and {@link purgeExpiredOAuth}
 * deletes it. Nothing is kept in process memory, so replicas share every grant.
 */
export function oauthAdapter(db: BookingDb, now: () => number): AdapterFactory {
  return (model) => new PayloadAdapter(db, model, now);
}

/** Deletes the expired rows of `oauth_payloads` (one statement, on the expiry index); returns how many went. */
export async function purgeExpiredOAuth(db: BookingDb, now: number): Promise<number> {
  const result = await db.deleteFrom('oauth_payloads').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
