import { ConfigurationError, type JsonObject, type ReplayBegin, type ReplayStore } from '@gatehousejs/core';
import { newFence } from '@gatehousejs/core/internal';
import type { SqliteDatabase } from './database.js';
import { type SweepOptions, sweepBatch } from './internal/options.js';
import { assertSchema } from './internal/schemaVersion.js';
import { type LockOptions, writer } from './internal/writes.js';

/** Options of {@link SqliteReplayStore}. */
export interface SqliteReplayStoreOptions extends SweepOptions, LockOptions {
  /**
   * A second connection on the same file (WAL mode, `synchronous = NORMAL`,
   * busy timeout 0; `createSqliteStores` opens one where the file allows it)
   * on which claims commit without waiting for the disk, once this store has
   * seen its completions commit inside a unit of work on `db`: that unit's
   * durable commit syncs the shared log past the claim before the write is
   * answered. Never after a completion outside one (`separateCommits()`), and
   * never with `durableClaims`. Renewals commit there too (a renewal lost
   * with the machine only shortens a lease whose holder died with it).
   */
  readonly bookkeeping?: () => SqliteDatabase;
  /**
   * Every claim waits for the disk, even where it could ride on the unit's
   * commit: set it when the product's data is in another database than
   * `db` (the unit's commit then syncs nothing of the product's). Default false.
   */
  readonly durableClaims?: boolean;
}

interface ReplayRow {
  readonly state: 'running' | 'completed';
  readonly arguments_digest: string;
  readonly result: string | null;
}

/** How often `begin` claims again when the row it lost to vanished before it could read it (released, purged). */
const BEGIN_ATTEMPTS = 5;

function prepareReplay(db: SqliteDatabase) {
  // Inserts a running claim, or takes over an expired row (as if absent); returns the new fence.
  const claim = db.prepare<
    { key: string; digest: string; fence: string; expiresAt: number; now: number },
    { fence: string }
  >(
    `INSERT INTO gatehouse_replay (key, state, arguments_digest, result, expires_at, fence)
     VALUES (@key, 'running', @digest, NULL, @expiresAt, @fence)
     ON CONFLICT (key) DO UPDATE SET state = 'running', arguments_digest = excluded.arguments_digest,
       result = NULL, expires_at = excluded.expires_at, fence = excluded.fence
     WHERE gatehouse_replay.expires_at <= @now
     RETURNING fence`,
  );
  const read = db.prepare<[string], ReplayRow>(
    'SELECT state, arguments_digest, result FROM gatehouse_replay WHERE key = ?',
  );
  // Completes only the claim holding `fence`; a lapsed lease nobody took over (row purged) completes too.
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
  return {
    /** One statement when it claims; a read of the row it lost to otherwise. */
    begin(key: string, digest: string, leaseMs: number, now: number): ReplayBegin {
      for (let attempt = 0; attempt < BEGIN_ATTEMPTS; attempt++) {
        const claimed = claim.get({ key, digest, fence: newFence(), expiresAt: now + leaseMs, now });
        if (claimed) return { state: 'started', fence: claimed.fence };
        const row = read.get(key);
        if (!row) continue; // released or purged between the two statements: claim again
        if (row.state === 'running') return { state: 'running', argumentsDigest: row.arguments_digest };
        const result = JSON.parse(row.result ?? 'null') as JsonObject;
        return { state: 'completed', argumentsDigest: row.arguments_digest, result };
      }
      throw new Error('SqliteReplayStore: the key kept changing under begin; retry.');
    },
    complete: (
      key: string,
      fence: string,
      digest: string,
      result: JsonObject,
      windowMs: number,
      now: number,
    ) =>
      complete.run({ key, fence, digest, result: JSON.stringify(result), expiresAt: now + windowMs })
        .changes === 1,
    // Extends only a live lease: a lapsed one may be taken over (or purged) at any moment.
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

/** Where claims commit: on `db` until a completion inside a unit on `db` pairs them with it, then on the bookkeeping connection. */
type ClaimMode = 'unpaired' | 'paired' | 'durable';

/**
 * A {@link ReplayStore} in the `gatehouse_replay` table (I10). `begin` claims a
 * key with one upsert that only overwrites an expired row (an expired row is
 * as good as absent) and writes a new fencing token, so of any number of
 * concurrent callers, across connections and processes, exactly one gets
 * `started`; `complete` writes the result only while that token is the
 * row's, so a call whose lease ran out and was taken over cannot complete
 * over the newer claim, and `renew` extends only the live lease holding that
 * token (core's heartbeat). No request deletes expired rows: `purgeExpired`
 * (housekeeping) does. With a `bookkeeping` connection, claims stop waiting
 * for the disk once they are seen to complete inside units of work on `db`
 * (see the option). Requires `migrateGatehouseSchema(db)` first.
 *
 * @example
 * const replay = new SqliteReplayStore(db, { lock });
 */
export class SqliteReplayStore implements ReplayStore {
  readonly #db: SqliteDatabase;
  readonly #sql = new WeakMap<SqliteDatabase, ReturnType<typeof prepareReplay>>();
  readonly #write: ReturnType<typeof writer>;
  readonly #bookkeep: ReturnType<typeof writer>;
  #claims: ClaimMode;

  constructor(db: SqliteDatabase, options: SqliteReplayStoreOptions = {}) {
    const { bookkeeping } = options;
    if (bookkeeping !== undefined && typeof bookkeeping !== 'function') {
      throw new ConfigurationError(
        'SqliteReplayStore: bookkeeping must be a function returning a connection.',
      );
    }
    this.#write = writer(db, 'SqliteReplayStore', options);
    this.#bookkeep = writer(bookkeeping ?? (() => db), 'SqliteReplayStore', options);
    sweepBatch('SqliteReplayStore', options.sweepBatch);
    assertSchema(db, 'SqliteReplayStore');
    this.#db = db;
    this.#sql.set(db, prepareReplay(db));
    this.#claims = bookkeeping === undefined || options.durableClaims === true ? 'durable' : 'unpaired';
  }

  /** The statements on `on`, prepared once per connection. */
  #statements(on: SqliteDatabase): ReturnType<typeof prepareReplay> {
    let sql = this.#sql.get(on);
    if (!sql) {
      sql = prepareReplay(on);
      this.#sql.set(on, sql);
    }
    return sql;
  }

  /** Synchronous {@link ReplayStore.begin}: one upsert, and a read when another call holds the key. */
  beginSync(
    key: string,
    argumentsDigest: string,
    leaseMs: number,
    now: number,
    on: SqliteDatabase = this.#db,
  ): ReplayBegin {
    return this.#statements(on).begin(key, argumentsDigest, leaseMs, now);
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
    return this.#statements(this.#db).complete(key, fence, argumentsDigest, result, windowMs, now);
  }

  /** Synchronous {@link ReplayStore.release}: forgets the running claim holding `fence`. */
  releaseSync(key: string, fence: string): void {
    this.#statements(this.#db).release.run(key, fence);
  }

  /**
   * Synchronous {@link ReplayStore.renew}: one `UPDATE` extending the running
   * claim holding `fence` to `now + leaseMs`; false once that claim is
   * completed, released, taken over, or its lease lapsed at `now`.
   */
  renewSync(
    key: string,
    fence: string,
    leaseMs: number,
    now: number,
    on: SqliteDatabase = this.#db,
  ): boolean {
    return this.#statements(on).renew.run({ key, fence, expiresAt: now + leaseMs, now }).changes === 1;
  }

  /** Synchronous {@link ReplayStore.holds}: whether `complete` with `fence` would store now. */
  holdsSync(key: string, fence: string): boolean {
    const row = this.#statements(this.#db).claimOf.get(key);
    return !row || (row.state === 'running' && row.fence === fence);
  }

  /** Deletes every record expired at `now` (housekeeping: no request deletes); returns how many. */
  purgeExpired(now: number): number {
    return this.#statements(this.#db).purge.run(now).changes;
  }

  begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin> {
    if (this.#claims === 'paired') {
      return this.#bookkeep(undefined, (on) => this.beginSync(key, argumentsDigest, leaseMs, now, on));
    }
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
    // A completion outside a unit of work on `db` pairs nothing, for good: its claims wait for the disk.
    if (unit !== this.#db) this.#claims = 'durable';
    else if (this.#claims === 'unpaired') this.#claims = 'paired';
    return this.#write(unit, () => this.completeSync(key, fence, argumentsDigest, result, windowMs, now));
  }

  release(key: string, fence: string): Promise<void> {
    return this.#write(undefined, () => this.releaseSync(key, fence));
  }

  async holds(key: string, fence: string): Promise<boolean> {
    return this.holdsSync(key, fence);
  }

  /** Commits on its own, under the write lock (on the bookkeeping connection when there is one). */
  renew(key: string, fence: string, leaseMs: number, now: number): Promise<boolean> {
    return this.#bookkeep(undefined, (on) => this.renewSync(key, fence, leaseMs, now, on));
  }
}
