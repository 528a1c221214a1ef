import {
  type BucketLimit,
  ConfigurationError,
  type RateBucketStore,
  type TakeResult,
} from '@gatehousejs/core';
import type pg from 'pg';
import { type SweepOptions, sweepBatch } from '../internal/options.js';
import { inBatches, keyBytes, prepared, WITHOUT_DISK_WAIT } from './sql.js';

/** Options of {@link PostgresRateBucketStore}. */
export interface PostgresRateBucketStoreOptions extends SweepOptions {}

const NAME = 'PostgresRateBucketStore';

// $1 key, $2 capacity, $3 refill per second, $4 now, $5 ms until a bucket is full again.
// A live row starts from its own tokens and time; an expired one is full again. Time that runs
// backwards (clock skew between replicas) refills nothing and never moves a bucket's clock back.
const LIVE = 'r.expires_at > $4::float8';
const START_TOKENS = `(CASE WHEN ${LIVE} THEN r.tokens ELSE $2::float8 END)`;
const START_AT = `(CASE WHEN ${LIVE} THEN r.at ELSE $4::float8 END)`;
const REFILLED = `LEAST($2::float8, ${START_TOKENS} + (GREATEST(0, $4::float8 - ${START_AT}) / 1000) * $3::float8)`;

/**
 * One statement: refills up to now and removes a token if there is one,
 * whatever other replicas do at once. It commits without waiting for the
 * WAL flush: a take lost with the machine only grants a token back.
 */
const TAKE = prepared(`${WITHOUT_DISK_WAIT}
  INSERT INTO gatehouse_rate_buckets AS r (key, tokens, at, expires_at, granted)
  SELECT $1::bytea, $6::float8, $4::float8, $4::float8 + $5::float8, $7::boolean FROM no_disk_wait
  ON CONFLICT (key) DO UPDATE SET
    tokens = CASE WHEN ${REFILLED} >= 1 THEN ${REFILLED} - 1 ELSE ${REFILLED} END,
    at = GREATEST(${START_AT}, $4::float8),
    expires_at = GREATEST(${START_AT}, $4::float8) + $5::float8,
    granted = ${REFILLED} >= 1
  RETURNING tokens, granted`);

// $1 key, $2 capacity, $3 refill per second, $4 now. Only a live bucket: a forgotten one is full already.
const REFUNDED = 'LEAST($2::float8, tokens + 1 + (GREATEST(0, $4::float8 - at) / 1000) * $3::float8)';
const REFUND = prepared(`UPDATE gatehouse_rate_buckets SET
    tokens = ${REFUNDED},
    at = GREATEST(at, $4::float8),
    expires_at = GREATEST(at, $4::float8) + (($2::float8 - ${REFUNDED}) / $3::float8) * 1000
  WHERE key = $1 AND expires_at > $4::float8`);

const PURGE = `DELETE FROM gatehouse_rate_buckets WHERE key IN (SELECT key FROM gatehouse_rate_buckets
  WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;

const positive = (n: number): boolean => Number.isFinite(n) && n > 0;

function checkLimit(limit: BucketLimit): void {
  if (!positive(limit.capacity) || !positive(limit.refillPerSecond)) {
    throw new ConfigurationError(`${NAME}: capacity and refillPerSecond must be positive.`);
  }
}

/**
 * A {@link RateBucketStore} in the PostgreSQL table `gatehouse_rate_buckets`
 * (I7). `take` and `refund` are each one statement that computes the refill
 * in SQL on the locked row (`INSERT … ON CONFLICT DO UPDATE`, `UPDATE … WHERE`),
 * so replicas sharing the database never grant more than the capacity
 * between them; the numbers are the memory store's. A take commits without
 * waiting for the WAL flush (`synchronous_commit = off` for its own
 * transaction only). A bucket's row expires once it would be full again: a
 * take treats it as full, and `purgeExpired` (housekeeping, never a take)
 * deletes it. Refuses
 * (ConfigurationError) a limit whose capacity or refill rate is not positive.
 * Requires `migrateGatehouseSchemaPostgres(pool)` first.
 *
 * @example
 * const buckets = new PostgresRateBucketStore(pool);
 */
export class PostgresRateBucketStore implements RateBucketStore {
  readonly #pool: pg.Pool;
  readonly #batch: number;

  constructor(pool: pg.Pool, options: PostgresRateBucketStoreOptions = {}) {
    this.#pool = pool;
    this.#batch = sweepBatch(NAME, options.sweepBatch);
  }

  async take(key: string, limit: BucketLimit, now: number): Promise<TakeResult> {
    checkLimit(limit);
    const refillMs = (limit.capacity / limit.refillPerSecond) * 1000;
    const granted = limit.capacity >= 1;
    const fresh = granted ? limit.capacity - 1 : limit.capacity;
    const taken = await this.#pool.query<{ tokens: number; granted: boolean }>({
      ...TAKE,
      values: [keyBytes(key), limit.capacity, limit.refillPerSecond, now, refillMs, fresh, granted],
    });
    const row = taken.rows[0];
    if (!row) throw new Error(`${NAME}: the bucket upsert returned no row.`);
    if (row.granted) return { ok: true, remaining: Math.floor(row.tokens) };
    return { ok: false, retryAfterMs: Math.ceil(((1 - row.tokens) / limit.refillPerSecond) * 1000) };
  }

  async refund(key: string, limit: BucketLimit, now: number): Promise<void> {
    checkLimit(limit);
    await this.#pool.query({
      ...REFUND,
      values: [keyBytes(key), limit.capacity, limit.refillPerSecond, now],
    });
  }

  /** Deletes every bucket that is full again at `now` (housekeeping), `sweepBatch` rows per statement; returns how many. */
  purgeExpired(now: number): Promise<number> {
    return inBatches(
      async () => (await this.#pool.query(PURGE, [now, this.#batch])).rowCount ?? 0,
      this.#batch,
    );
  }
}
