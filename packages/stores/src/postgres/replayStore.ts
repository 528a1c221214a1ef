import { ConfigurationError, type JsonObject, type ReplayBegin, type ReplayStore } from '@gatehousejs/core';
import { newFence } from '@gatehousejs/core/internal';
import type pg from 'pg';
import { type SweepOptions, sweepBatch } from '../internal/options.js';
import { isClientOf } from './pool.js';
import { inBatches, keyBytes, on, prepared, WITHOUT_DISK_WAIT } from './sql.js';

/** Options of {@link PostgresReplayStore}. */
export interface PostgresReplayStoreOptions extends SweepOptions {
  /**
   * Every claim waits for the WAL flush, even where it could ride on the
   * unit's commit: set it when the product's data is in another database
   * than the pool's. Default false (see {@link PostgresReplayStore}).
   */
  readonly durableClaims?: boolean;
}

const NAME = 'PostgresReplayStore';

const TAKE_OVER_EXPIRED = `ON CONFLICT (key) DO UPDATE SET state = 'running', arguments_digest = excluded.arguments_digest,
    result = NULL, fence = excluded.fence, expires_at = excluded.expires_at
  WHERE r.expires_at <= $5
  RETURNING fence`;

/** Inserts a running claim, or takes over an expired row (as good as absent); returns the fence. */
const CLAIM =
  prepared(`INSERT INTO gatehouse_replay AS r (key, state, arguments_digest, result, fence, expires_at)
  VALUES ($1, 'running', $2, NULL, $3, $4)
  ${TAKE_OVER_EXPIRED}`);

/** {@link CLAIM}, committed without waiting for the WAL flush: the unit's commit flushes it. */
const CLAIM_WITHOUT_DISK_WAIT = prepared(`${WITHOUT_DISK_WAIT}
  INSERT INTO gatehouse_replay AS r (key, state, arguments_digest, result, fence, expires_at)
  SELECT $1::bytea, 'running', $2::text, NULL, $3::text, $4::bigint FROM no_disk_wait
  ${TAKE_OVER_EXPIRED}`);

/** Completes only the claim holding the fence; a lapsed lease nobody took over (row swept) completes too. */
const COMPLETE =
  prepared(`INSERT INTO gatehouse_replay AS r (key, state, arguments_digest, result, fence, expires_at)
  VALUES ($1, 'completed', $2, $3, NULL, $4)
  ON CONFLICT (key) DO UPDATE SET state = 'completed', arguments_digest = excluded.arguments_digest,
    result = excluded.result, fence = NULL, expires_at = excluded.expires_at
  WHERE r.state = 'running' AND r.fence = $5
  RETURNING 1`);

/**
 * Extends only a live lease of the claim holding the fence: a lapsed one may
 * be taken over at any moment. A heartbeat, not an answer: it commits
 * without waiting for the WAL flush (lost with the machine, it only shortens
 * the lease of a call that died with it).
 */
const RENEW = prepared(`${WITHOUT_DISK_WAIT}
  UPDATE gatehouse_replay SET expires_at = $3 FROM no_disk_wait
  WHERE key = $1 AND state = 'running' AND fence = $2 AND expires_at > $4`);

const FIND = prepared('SELECT state, arguments_digest, result FROM gatehouse_replay WHERE key = $1');

const PURGE = `DELETE FROM gatehouse_replay WHERE key IN (SELECT key FROM gatehouse_replay
  WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;

interface ReplayRow {
  readonly state: 'running' | 'completed';
  readonly arguments_digest: string;
  readonly result: string | null;
}

/** How often `begin` retries when the row it lost to vanished before it could read it (released, purged). */
const BEGIN_ATTEMPTS = 5;

/**
 * A {@link ReplayStore} in the PostgreSQL table `gatehouse_replay` (I10).
 * `begin` is one statement, committed on its own: an insert-if-absent that
 * only takes over an expired row (`INSERT … ON CONFLICT DO UPDATE … WHERE
 * expires_at <= now`), with a new random fencing token per claim, so of any
 * number of concurrent callers, across processes, exactly one gets
 * `started`. `complete` writes the result only while its fence is the row's
 * (inside the unit of work when given its client), so a call whose lease ran
 * out and was taken over cannot complete; `renew` extends only the live
 * lease holding its fence (core's heartbeat, committed on its own, without
 * waiting for the WAL flush); `release` deletes only its own running claim.
 * Expired rows are as good as absent to every statement; no request deletes
 * them: `purgeExpired` (housekeeping) does. Once the store has seen a claim
 * complete inside a unit of work on a client of its own pool (one cluster,
 * one WAL), claims commit with `synchronous_commit = off` for their own
 * transaction: the unit's commit, which writes (the completion), flushes
 * the WAL past the claim before the write is answered. Never after a
 * completion outside one (`separateCommits()`, a client of another pool),
 * and never with `durableClaims`. Requires `migrateGatehouseSchemaPostgres(pool)` first.
 *
 * @example
 * const replay = new PostgresReplayStore(pool);
 */
export class PostgresReplayStore implements ReplayStore {
  readonly #pool: pg.Pool;
  readonly #batch: number;
  /** Whether claims wait for the WAL flush: until paired with a unit on this pool, and for good after an unpaired completion. */
  #claims: 'unpaired' | 'paired' | 'durable';

  constructor(pool: pg.Pool, options: PostgresReplayStoreOptions = {}) {
    const durableClaims = options.durableClaims ?? false;
    if (typeof durableClaims !== 'boolean') {
      throw new ConfigurationError(`${NAME}: durableClaims must be true or false.`);
    }
    this.#pool = pool;
    this.#batch = sweepBatch(NAME, options.sweepBatch);
    this.#claims = durableClaims ? 'durable' : 'unpaired';
  }

  async begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin> {
    const id = keyBytes(key);
    for (let attempt = 0; attempt < BEGIN_ATTEMPTS; attempt++) {
      const fence = newFence();
      const claim = this.#claims === 'paired' ? CLAIM_WITHOUT_DISK_WAIT : CLAIM;
      const claimed = await this.#pool.query<{ fence: string }>({
        ...claim,
        values: [id, argumentsDigest, fence, now + leaseMs, now],
      });
      const row = claimed.rows[0];
      if (row) return { state: 'started', fence: row.fence };
      const found = await this.#pool.query<ReplayRow>({ ...FIND, values: [id] });
      const current = found.rows[0];
      if (!current) continue; // released or purged between the two statements: claim again
      if (current.state === 'running') return { state: 'running', argumentsDigest: current.arguments_digest };
      const result = JSON.parse(current.result ?? 'null') as JsonObject;
      return { state: 'completed', argumentsDigest: current.arguments_digest, result };
    }
    throw new Error(`${NAME}: the key kept changing under begin; retry.`);
  }

  async complete(
    key: string,
    fence: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
    unit?: unknown,
  ): Promise<boolean> {
    if (!isClientOf(this.#pool, unit)) this.#claims = 'durable';
    else if (this.#claims === 'unpaired') this.#claims = 'paired';
    const done = await on(this.#pool, unit, NAME).query({
      ...COMPLETE,
      values: [keyBytes(key), argumentsDigest, JSON.stringify(result), now + windowMs, fence],
    });
    return done.rowCount === 1;
  }

  async release(key: string, fence: string): Promise<void> {
    await this.#pool.query(
      "DELETE FROM gatehouse_replay WHERE key = $1 AND state = 'running' AND fence = $2",
      [keyBytes(key), fence],
    );
  }

  async renew(key: string, fence: string, leaseMs: number, now: number): Promise<boolean> {
    const renewed = await this.#pool.query({ ...RENEW, values: [keyBytes(key), fence, now + leaseMs, now] });
    return renewed.rowCount === 1;
  }

  async holds(key: string, fence: string): Promise<boolean> {
    const found = await this.#pool.query<{ state: string; fence: string | null }>(
      'SELECT state, fence FROM gatehouse_replay WHERE key = $1',
      [keyBytes(key)],
    );
    const row = found.rows[0];
    return !row || (row.state === 'running' && row.fence === fence);
  }

  /** Deletes every record expired at `now`, `sweepBatch` rows per statement; returns how many. */
  purgeExpired(now: number): Promise<number> {
    return inBatches(
      async () => (await this.#pool.query(PURGE, [now, this.#batch])).rowCount ?? 0,
      this.#batch,
    );
  }
}
