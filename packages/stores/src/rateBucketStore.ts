import {
  type BucketLimit,
  ConfigurationError,
  type RateBucketStore,
  type TakeResult,
} from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { type BucketState, refundToken, takeToken } from './internal/bucket.js';
import { type SweepOptions, sweepBatch } from './internal/options.js';
import { assertSchema } from './internal/schemaVersion.js';
import { type LockOptions, writer } from './internal/writes.js';

/** Options of {@link SqliteRateBucketStore}. */
export interface SqliteRateBucketStoreOptions extends SweepOptions, LockOptions {}

interface BucketRow extends BucketState {
  readonly expires_at: number;
}

function prepareBuckets(db: SqliteDatabase, batch: number) {
  const read = db.prepare<[string], BucketRow>(
    'SELECT tokens, at, expires_at FROM gatehouse_rate_buckets WHERE key = ?',
  );
  const write = db.prepare<[string, number, number, number]>(
    `INSERT INTO gatehouse_rate_buckets (key, tokens, at, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at = excluded.at, expires_at = excluded.expires_at`,
  );
  const sweep = db.prepare<[number, number]>(
    `DELETE FROM gatehouse_rate_buckets WHERE key IN
     (SELECT key FROM gatehouse_rate_buckets WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
  );
  return {
    take: db.transaction((key: string, limit: BucketLimit, now: number): TakeResult => {
      const row = read.get(key);
      const live = row !== undefined && row.expires_at > now ? row : undefined;
      const step = takeToken(live, limit, now);
      write.run(key, step.next.tokens, step.next.at, step.expiresAt);
      sweep.run(now, batch);
      return step.answer;
    }),
    refund: db.transaction((key: string, limit: BucketLimit, now: number): void => {
      const row = read.get(key);
      if (row === undefined || row.expires_at <= now) return; // a forgotten bucket is full already
      const step = refundToken(row, limit, now);
      write.run(key, step.next.tokens, step.next.at, step.expiresAt);
    }),
    purge: db.prepare<[number]>('DELETE FROM gatehouse_rate_buckets WHERE expires_at <= ?'),
  };
}

const positive = (n: number): boolean => Number.isFinite(n) && n > 0;

/**
 * A {@link RateBucketStore} in `gatehouse_rate_buckets` (I7). `take` reads,
 * refills and writes a bucket in one IMMEDIATE transaction, so replicas sharing
 * the file never grant more than the capacity between them. A bucket's row
 * expires once it would be full again and is swept by later takes. Refuses
 * (ConfigurationError) a limit whose capacity or refill rate is not positive.
 *
 * @example
 * const buckets = new SqliteRateBucketStore(db);
 */
export class SqliteRateBucketStore implements RateBucketStore {
  readonly #sql: ReturnType<typeof prepareBuckets>;
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: SqliteRateBucketStoreOptions = {}) {
    this.#write = writer(db, 'SqliteRateBucketStore', options);
    assertSchema(db, 'SqliteRateBucketStore');
    this.#sql = prepareBuckets(db, sweepBatch('SqliteRateBucketStore', options.sweepBatch));
  }

  /** Synchronous {@link RateBucketStore.take}. */
  takeSync(key: string, limit: BucketLimit, now: number): TakeResult {
    if (!positive(limit.capacity) || !positive(limit.refillPerSecond)) {
      throw new ConfigurationError('SqliteRateBucketStore: capacity and refillPerSecond must be positive.');
    }
    return this.#sql.take.immediate(key, limit, now);
  }

  /** Deletes every bucket that is full again at `now`; returns how many. */
  purgeExpired(now: number): number {
    return this.#sql.purge.run(now).changes;
  }

  /** Synchronous {@link RateBucketStore.refund}. */
  refundSync(key: string, limit: BucketLimit, now: number): void {
    this.#sql.refund.immediate(key, limit, now);
  }

  take(key: string, limit: BucketLimit, now: number): Promise<TakeResult> {
    return this.#write(undefined, () => this.takeSync(key, limit, now));
  }

  refund(key: string, limit: BucketLimit, now: number): Promise<void> {
    return this.#write(undefined, () => this.refundSync(key, limit, now));
  }
}
