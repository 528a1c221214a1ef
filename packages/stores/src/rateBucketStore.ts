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
export interface SqliteRateBucketStoreOptions extends SweepOptions, LockOptions {
  /**
   * A second connection on the same file on which takes and refunds commit
   * without waiting for the disk (a take lost with the machine only grants a
   * token back): WAL mode, `synchronous = NORMAL`, busy timeout 0.
   * `createSqliteStores` opens one where the file allows it; without it they
   * commit on `db`.
   */
  readonly bookkeeping?: () => SqliteDatabase;
}

interface BucketRow extends BucketState {
  readonly expires_at: number;
}

interface TakeParams {
  readonly key: string;
  readonly capacity: number;
  readonly refill: number;
  readonly now: number;
  /** How long an emptied bucket takes to be full again, in ms: its row expires then. */
  readonly fullMs: number;
}

// A live row starts from its own tokens and time; an expired one is full again (as absent). Time that
// runs backwards (clock skew between processes) refills nothing and never moves a bucket's clock back.
// The same arithmetic as takeToken, in the same order, so both give the same numbers.
const LIVE = 'gatehouse_rate_buckets.expires_at > @now';
const START_TOKENS = `(CASE WHEN ${LIVE} THEN gatehouse_rate_buckets.tokens ELSE @capacity END)`;
const START_AT = `(CASE WHEN ${LIVE} THEN gatehouse_rate_buckets.at ELSE @now END)`;
const REFILLED = `min(@capacity, ${START_TOKENS} + (max(0, @now - ${START_AT}) / 1000.0) * @refill)`;

/**
 * One statement, so it needs no transaction of its own: takes a token from a
 * bucket that has one (a new bucket, an expired one reset to full, or a live
 * one refilled up to now) and returns what is left; a bucket without a token
 * is left as it is and no row comes back (refilling from the old state later
 * gives the same numbers).
 */
const TAKE = `INSERT INTO gatehouse_rate_buckets (key, tokens, at, expires_at)
  VALUES (@key, @capacity - 1, @now, @now + @fullMs)
  ON CONFLICT (key) DO UPDATE SET
    tokens = ${REFILLED} - 1,
    at = max(${START_AT}, @now),
    expires_at = max(${START_AT}, @now) + @fullMs
  WHERE ${REFILLED} >= 1
  RETURNING tokens`;

function prepareBuckets(db: SqliteDatabase) {
  const read = db.prepare<[string], BucketRow>(
    'SELECT tokens, at, expires_at FROM gatehouse_rate_buckets WHERE key = ?',
  );
  const write = db.prepare<[string, number, number, number]>(
    `INSERT INTO gatehouse_rate_buckets (key, tokens, at, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at = excluded.at, expires_at = excluded.expires_at`,
  );
  const take = db.prepare<TakeParams, { tokens: number }>(TAKE);
  return {
    take(key: string, limit: BucketLimit, now: number): TakeResult {
      const fullMs = (limit.capacity / limit.refillPerSecond) * 1000;
      const params = { key, capacity: limit.capacity, refill: limit.refillPerSecond, now, fullMs };
      const taken = limit.capacity >= 1 ? take.get(params) : undefined;
      if (taken) return { ok: true, remaining: Math.floor(taken.tokens) };
      // No token: the hint from the bucket as it stands (another process may move it meanwhile; a hint only).
      const row = read.get(key);
      return takeToken(row !== undefined && row.expires_at > now ? row : undefined, limit, now).answer;
    },
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
 * A {@link RateBucketStore} in `gatehouse_rate_buckets` (I7). `take` refills
 * and takes in one upsert statement on the locked row, so replicas sharing
 * the file never grant more than the capacity between them. A bucket's row
 * expires once it would be full again: a take treats it as absent, and
 * `purgeExpired` (housekeeping, never a take) deletes it. Refuses
 * (ConfigurationError) a limit whose capacity or refill rate is not positive.
 *
 * @example
 * const buckets = new SqliteRateBucketStore(db);
 */
export class SqliteRateBucketStore implements RateBucketStore {
  readonly #db: SqliteDatabase;
  readonly #on: () => SqliteDatabase;
  readonly #sql = new WeakMap<SqliteDatabase, ReturnType<typeof prepareBuckets>>();
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: SqliteRateBucketStoreOptions = {}) {
    const bookkeeping = options.bookkeeping;
    if (bookkeeping !== undefined && typeof bookkeeping !== 'function') {
      throw new ConfigurationError(
        'SqliteRateBucketStore: bookkeeping must be a function returning a connection.',
      );
    }
    this.#on = bookkeeping ?? (() => db);
    this.#write = writer(this.#on, 'SqliteRateBucketStore', options);
    sweepBatch('SqliteRateBucketStore', options.sweepBatch);
    assertSchema(db, 'SqliteRateBucketStore');
    this.#db = db;
    this.#sql.set(db, prepareBuckets(db));
  }

  /** The statements on `db`, prepared once per connection. */
  #statements(db: SqliteDatabase): ReturnType<typeof prepareBuckets> {
    let sql = this.#sql.get(db);
    if (!sql) {
      sql = prepareBuckets(db);
      this.#sql.set(db, sql);
    }
    return sql;
  }

  /** Synchronous {@link RateBucketStore.take}, on `db` (or the given connection on the same file). */
  takeSync(key: string, limit: BucketLimit, now: number, on: SqliteDatabase = this.#db): TakeResult {
    if (!positive(limit.capacity) || !positive(limit.refillPerSecond)) {
      throw new ConfigurationError('SqliteRateBucketStore: capacity and refillPerSecond must be positive.');
    }
    return this.#statements(on).take(key, limit, now);
  }

  /** Deletes every bucket that is full again at `now` (housekeeping); returns how many. */
  purgeExpired(now: number): number {
    return this.#statements(this.#db).purge.run(now).changes;
  }

  /** Synchronous {@link RateBucketStore.refund}, on `db` (or the given connection on the same file). */
  refundSync(key: string, limit: BucketLimit, now: number, on: SqliteDatabase = this.#db): void {
    this.#statements(on).refund.immediate(key, limit, now);
  }

  take(key: string, limit: BucketLimit, now: number): Promise<TakeResult> {
    return this.#write(undefined, (on) => this.takeSync(key, limit, now, on));
  }

  refund(key: string, limit: BucketLimit, now: number): Promise<void> {
    return this.#write(undefined, (on) => this.refundSync(key, limit, now, on));
  }
}
