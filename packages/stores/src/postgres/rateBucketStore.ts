import {
  type BucketLimit,
  ConfigurationError,
  type RateBucketStore,
  type TakeResult,
} from '@gatehousejs/core';
import type pg from 'pg';
import { batchPerKey } from '../internal/batchPerKey.js';
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

// $6 tokens of a new bucket, $7 tokens taken from it, $8 tokens asked for: as many as are whole
// tokens in the bucket, up to $8, each as one take after another at the same instant would.
const TAKEN = `LEAST($8::float8, FLOOR(${REFILLED}))`;

/**
 * One statement: refills up to now and removes up to `$8` tokens, as many as
 * there are, whatever other replicas do at once. It commits without waiting
 * for the WAL flush: a take lost with the machine only grants tokens back.
 * `granted` (any token taken) is written for replicas of schema version 4.
 */
const TAKE = prepared(`${WITHOUT_DISK_WAIT}
  INSERT INTO gatehouse_rate_buckets AS r (key, tokens, at, expires_at, granted, taken)
  SELECT $1::bytea, $6::float8, $4::float8, $4::float8 + $5::float8, $7::integer >= 1, $7::integer FROM no_disk_wait
  ON CONFLICT (key) DO UPDATE SET
    tokens = ${REFILLED} - ${TAKEN},
    at = GREATEST(${START_AT}, $4::float8),
    expires_at = GREATEST(${START_AT}, $4::float8) + $5::float8,
    granted = ${TAKEN} >= 1,
    taken = ${TAKEN}
  RETURNING tokens, taken`);

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

interface Take {
  readonly key: string;
  readonly limit: BucketLimit;
  readonly now: number;
}

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
 * between them; the numbers are the memory store's. Takes of one bucket
 * that arrive while another of its takes is at the database go together as
 * the next statement, which takes as many tokens as they ask for and there
 * are, first come first served: concurrent calls of one connection cost one
 * round trip per batch instead of one each. A take commits without
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
  readonly #take: (bucket: string, take: Take) => Promise<TakeResult>;

  constructor(pool: pg.Pool, options: PostgresRateBucketStoreOptions = {}) {
    this.#pool = pool;
    this.#batch = sweepBatch(NAME, options.sweepBatch);
    this.#take = batchPerKey((_, takes) => this.#takeMany(takes));
  }

  take(key: string, limit: BucketLimit, now: number): Promise<TakeResult> {
    checkLimit(limit);
    // one bucket: its key under one limit (numbers first, so no two pairs give one string)
    return this.#take(`${limit.capacity}|${limit.refillPerSecond}|${key}`, { key, limit, now });
  }

  /** Takes of one bucket in one statement, at the latest of their instants; one answer each, in order. */
  async #takeMany(takes: readonly Take[]): Promise<TakeResult[]> {
    const [{ key, limit }] = takes as [Take];
    const now = takes.reduce((latest, take) => Math.max(latest, take.now), Number.NEGATIVE_INFINITY);
    const refillMs = (limit.capacity / limit.refillPerSecond) * 1000;
    const fromNew = Math.min(takes.length, Math.floor(limit.capacity));
    const answered = await this.#pool.query<{ tokens: number; taken: number }>({
      ...TAKE,
      values: [
        keyBytes(key),
        limit.capacity,
        limit.refillPerSecond,
        now,
        refillMs,
        limit.capacity - fromNew,
        fromNew,
        takes.length,
      ],
    });
    const row = answered.rows[0];
    if (!row) throw new Error(`${NAME}: the bucket upsert returned no row.`);
    const { tokens, taken } = row;
    const refused: TakeResult = {
      ok: false,
      retryAfterMs: Math.ceil(((1 - tokens) / limit.refillPerSecond) * 1000),
    };
    // the i-th of `taken` grants leaves what one take after another would: the rest of the batch's tokens
    return takes.map((_, i) =>
      i < taken ? { ok: true, remaining: Math.floor(tokens + taken - i - 1) } : refused,
    );
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
