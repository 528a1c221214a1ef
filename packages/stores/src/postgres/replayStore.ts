import { randomBytes } from 'node:crypto';
import type { JsonObject, ReplayBegin, ReplayStore } from '@gatehousejs/core';
import type pg from 'pg';
import { type SweepOptions, sweepBatch } from '../internal/options.js';
import { inBatches, keyBytes, on } from './sql.js';

/** Options of {@link PostgresReplayStore}. */
export interface PostgresReplayStoreOptions extends SweepOptions {}

const NAME = 'PostgresReplayStore';

/** Inserts a running claim, or takes over an expired row; returns the fence and whether a row was added. */
const CLAIM = `INSERT INTO gatehouse_replay AS r (key, state, arguments_digest, result, fence, expires_at)
  VALUES ($1, 'running', $2, NULL, $3, $4)
  ON CONFLICT (key) DO UPDATE SET state = 'running', arguments_digest = excluded.arguments_digest,
    result = NULL, fence = excluded.fence, expires_at = excluded.expires_at
  WHERE r.expires_at <= $5
  RETURNING fence, (xmax = 0) AS inserted`;

/** Completes only the claim holding the fence; a lapsed lease nobody took over (row swept) completes too. */
const COMPLETE = `INSERT INTO gatehouse_replay AS r (key, state, arguments_digest, result, fence, expires_at)
  VALUES ($1, 'completed', $2, $3, NULL, $4)
  ON CONFLICT (key) DO UPDATE SET state = 'completed', arguments_digest = excluded.arguments_digest,
    result = excluded.result, fence = NULL, expires_at = excluded.expires_at
  WHERE r.state = 'running' AND r.fence = $5
  RETURNING 1`;

/** Extends only a live lease of the claim holding the fence: a lapsed one may be taken over at any moment. */
const RENEW = `UPDATE gatehouse_replay SET expires_at = $3
  WHERE key = $1 AND state = 'running' AND fence = $2 AND expires_at > $4`;

const SWEEP = `DELETE FROM gatehouse_replay WHERE key IN (SELECT key FROM gatehouse_replay
  WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;

interface ReplayRow {
  readonly state: 'running' | 'completed';
  readonly arguments_digest: string;
  readonly result: string | null;
}

/** A fencing token: unique per claim, across processes. */
const newFence = (): string => randomBytes(12).toString('hex');

/** How often `begin` retries when the row it lost to vanished before it could read it (released, swept). */
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
 * lease holding its fence (core's heartbeat, committed on its own);
 * `release` deletes only its own running claim. Expired rows are invisible
 * at once and swept by later claims. Requires `migrateGatehouseSchemaPostgres(pool)` first.
 *
 * @example
 * const replay = new PostgresReplayStore(pool);
 */
export class PostgresReplayStore implements ReplayStore {
  readonly #pool: pg.Pool;
  readonly #batch: number;

  constructor(pool: pg.Pool, options: PostgresReplayStoreOptions = {}) {
    this.#pool = pool;
    this.#batch = sweepBatch(NAME, options.sweepBatch);
  }

  async begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin> {
    const id = keyBytes(key);
    for (let attempt = 0; attempt < BEGIN_ATTEMPTS; attempt++) {
      const fence = newFence();
      const claimed = await this.#pool.query<{ fence: string; inserted: boolean }>(CLAIM, [
        id,
        argumentsDigest,
        fence,
        now + leaseMs,
        now,
      ]);
      const row = claimed.rows[0];
      if (row) {
        if (row.inserted) await this.#sweep(now);
        return { state: 'started', fence: row.fence };
      }
      const found = await this.#pool.query<ReplayRow>(
        'SELECT state, arguments_digest, result FROM gatehouse_replay WHERE key = $1',
        [id],
      );
      const current = found.rows[0];
      if (!current) continue; // released or swept between the two statements: claim again
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
    const done = await on(this.#pool, unit, NAME).query(COMPLETE, [
      keyBytes(key),
      argumentsDigest,
      JSON.stringify(result),
      now + windowMs,
      fence,
    ]);
    return done.rowCount === 1;
  }

  async release(key: string, fence: string): Promise<void> {
    await this.#pool.query(
      "DELETE FROM gatehouse_replay WHERE key = $1 AND state = 'running' AND fence = $2",
      [keyBytes(key), fence],
    );
  }

  async renew(key: string, fence: string, leaseMs: number, now: number): Promise<boolean> {
    const renewed = await this.#pool.query(RENEW, [keyBytes(key), fence, now + leaseMs, now]);
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
    return inBatches(() => this.#sweep(now), this.#batch);
  }

  async #sweep(now: number): Promise<number> {
    return (await this.#pool.query(SWEEP, [now, this.#batch])).rowCount ?? 0;
  }
}
