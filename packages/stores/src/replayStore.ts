import type { JsonObject, ReplayBegin, ReplayStore } from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { type SweepOptions, sweepBatch } from './internal/options.js';
import { assertSchema } from './internal/schemaVersion.js';
import { type LockOptions, writer } from './internal/writes.js';

/** Options of {@link SqliteReplayStore}. */
export interface SqliteReplayStoreOptions extends SweepOptions, LockOptions {}

interface ReplayRow {
  readonly state: 'running' | 'completed';
  readonly arguments_digest: string;
  readonly result: string | null;
}

/** A fencing token: unique per claim, across processes. */
const newFence = () => {
  let hex = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(12))) hex += byte.toString(16).padStart(2, '0');
  return hex;
};

function prepareReplay(db: SqliteDatabase, batch: number) {
  const claim = db.prepare<{ key: string; digest: string; fence: string; expiresAt: number; now: number }>(
    `INSERT INTO gatehouse_replay (key, state, arguments_digest, result, expires_at, fence)
     VALUES (@key, 'running', @digest, NULL, @expiresAt, @fence)
     ON CONFLICT (key) DO UPDATE SET state = 'running', arguments_digest = excluded.arguments_digest,
       result = NULL, expires_at = excluded.expires_at, fence = excluded.fence
     WHERE gatehouse_replay.expires_at <= @now`,
  );
  const read = db.prepare<[string], ReplayRow>(
    'SELECT state, arguments_digest, result FROM gatehouse_replay WHERE key = ?',
  );
  // Completes only the claim holding `fence`; a lapsed lease nobody took over (row swept) completes too.
  const complete = db.prepare<{
    key: string;
    fence: string;
    digest: string;
    result: string;
    expiresAt: number;
  }>(
    `INSERT INTO gatehouse_replay (key, state, arguments_digest, result, expires_at, fence)
     VALUES (@key, 'completed', @digest, @result, @expiresAt, NULL)
     ON CONFLICT (key) DO UPDATE SET state = 'completed', arguments_digest = excluded.arguments_digest,
       result = excluded.result, expires_at = excluded.expires_at, fence = NULL
     WHERE gatehouse_replay.state = 'running' AND gatehouse_replay.fence = @fence`,
  );
  const sweep = db.prepare<[number, number]>(
    `DELETE FROM gatehouse_replay WHERE key IN
     (SELECT key FROM gatehouse_replay WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
  );
  return {
    begin: db.transaction((key: string, digest: string, leaseMs: number, now: number): ReplayBegin => {
      const fence = newFence();
      if (claim.run({ key, digest, fence, expiresAt: now + leaseMs, now }).changes === 1) {
        sweep.run(now, batch);
        return { state: 'started', fence };
      }
      const row = read.get(key);
      if (!row) throw new Error('A replay record vanished inside its own transaction.');
      if (row.state === 'running') return { state: 'running', argumentsDigest: row.arguments_digest };
      const result = JSON.parse(row.result ?? 'null') as JsonObject;
      return { state: 'completed', argumentsDigest: row.arguments_digest, result };
    }),
    complete: db.transaction(
      (key: string, fence: string, digest: string, result: JsonObject, windowMs: number, now: number) => {
        const done =
          complete.run({ key, fence, digest, result: JSON.stringify(result), expiresAt: now + windowMs })
            .changes === 1;
        sweep.run(now, batch);
        return done;
      },
    ),
    // Extends only a live lease: a lapsed one may be taken over (or swept) at any moment.
    renew: db.prepare<{ key: string; fence: string; expiresAt: number; now: number }>(
      `UPDATE gatehouse_replay SET expires_at = @expiresAt
       WHERE key = @key AND state = 'running' AND fence = @fence AND expires_at > @now`,
    ),
    release: db.prepare<[string, string]>(
      "DELETE FROM gatehouse_replay WHERE key = ? AND state = 'running' AND fence = ?",
    ),
    claimOf: db.prepare<[string], { state: string; fence: string | null }>(
      'SELECT state, fence FROM gatehouse_replay WHERE key = ?',
    ),
    purge: db.prepare<[number]>('DELETE FROM gatehouse_replay WHERE expires_at <= ?'),
  };
}

/**
 * A {@link ReplayStore} in the `gatehouse_replay` table (I10). `begin` claims a
 * key with one upsert that only overwrites an expired row and writes a new
 * fencing token, so of any number of concurrent callers, across connections
 * and processes, exactly one gets `started`; `complete` writes the result
 * only while that token is the row's, so a call whose lease ran out and was
 * taken over cannot complete over the newer claim, and `renew` extends
 * only the live lease holding that token (core's heartbeat). Expired rows
 * are invisible at once and swept by later writes. Requires
 * `migrateGatehouseSchema(db)` first.
 *
 * @example
 * const replay = new SqliteReplayStore(db, { lock });
 */
export class SqliteReplayStore implements ReplayStore {
  readonly #sql: ReturnType<typeof prepareReplay>;
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: SqliteReplayStoreOptions = {}) {
    this.#write = writer(db, 'SqliteReplayStore', options);
    assertSchema(db, 'SqliteReplayStore');
    this.#sql = prepareReplay(db, sweepBatch('SqliteReplayStore', options.sweepBatch));
  }

  /** Synchronous {@link ReplayStore.begin}: one IMMEDIATE transaction (a savepoint inside an open one). */
  beginSync(key: string, argumentsDigest: string, leaseMs: number, now: number): ReplayBegin {
    return this.#sql.begin.immediate(key, argumentsDigest, leaseMs, now);
  }

  /** Synchronous {@link ReplayStore.complete}: true only while `fence` is the key's claim. */
  completeSync(
    key: string,
    fence: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
  ): boolean {
    return this.#sql.complete.immediate(key, fence, argumentsDigest, result, windowMs, now);
  }

  /** Synchronous {@link ReplayStore.release}: forgets the running claim holding `fence`. */
  releaseSync(key: string, fence: string): void {
    this.#sql.release.run(key, fence);
  }

  /**
   * Synchronous {@link ReplayStore.renew}: one `UPDATE` extending the running
   * claim holding `fence` to `now + leaseMs`; false once that claim is
   * completed, released, taken over, or its lease lapsed at `now`.
   */
  renewSync(key: string, fence: string, leaseMs: number, now: number): boolean {
    return this.#sql.renew.run({ key, fence, expiresAt: now + leaseMs, now }).changes === 1;
  }

  /** Synchronous {@link ReplayStore.holds}: whether `complete` with `fence` would store now. */
  holdsSync(key: string, fence: string): boolean {
    const row = this.#sql.claimOf.get(key);
    return !row || (row.state === 'running' && row.fence === fence);
  }

  /** Deletes every record expired at `now` (the opportunistic sweep's big brother); returns how many. */
  purgeExpired(now: number): number {
    return this.#sql.purge.run(now).changes;
  }

  begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin> {
    return this.#write(undefined, () => this.beginSync(key, argumentsDigest, leaseMs, now));
  }

  complete(
    key: string,
    fence: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
    unit?: unknown,
  ): Promise<boolean> {
    return this.#write(unit, () => this.completeSync(key, fence, argumentsDigest, result, windowMs, now));
  }

  release(key: string, fence: string): Promise<void> {
    return this.#write(undefined, () => this.releaseSync(key, fence));
  }

  async holds(key: string, fence: string): Promise<boolean> {
    return this.holdsSync(key, fence);
  }

  /** Commits on its own, under the write lock. */
  renew(key: string, fence: string, leaseMs: number, now: number): Promise<boolean> {
    return this.#write(undefined, () => this.renewSync(key, fence, leaseMs, now));
  }
}
