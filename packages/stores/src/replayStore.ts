import type { JsonObject, ReplayBegin, ReplayStore } from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { type SweepOptions, sweepBatch } from './internal/options.js';
import { assertSchema } from './internal/schemaVersion.js';

/** Options of {@link SqliteReplayStore}. */
export type SqliteReplayStoreOptions = SweepOptions;

interface ReplayRow {
  readonly state: 'running' | 'completed';
  readonly arguments_digest: string;
  readonly result: string | null;
}

const STARTED: ReplayBegin = Object.freeze({ state: 'started' });

function prepareReplay(db: SqliteDatabase, batch: number) {
  const claim = db.prepare<{ key: string; digest: string; expiresAt: number; now: number }>(
    `INSERT INTO gatehouse_replay (key, state, arguments_digest, result, expires_at)
     VALUES (@key, 'running', @digest, NULL, @expiresAt)
     ON CONFLICT (key) DO UPDATE SET state = 'running', arguments_digest = excluded.arguments_digest,
       result = NULL, expires_at = excluded.expires_at
     WHERE gatehouse_replay.expires_at <= @now`,
  );
  const read = db.prepare<[string], ReplayRow>(
    'SELECT state, arguments_digest, result FROM gatehouse_replay WHERE key = ?',
  );
  const complete = db.prepare<{ key: string; digest: string; result: string; expiresAt: number }>(
    `INSERT INTO gatehouse_replay (key, state, arguments_digest, result, expires_at)
     VALUES (@key, 'completed', @digest, @result, @expiresAt)
     ON CONFLICT (key) DO UPDATE SET state = 'completed', arguments_digest = excluded.arguments_digest,
       result = excluded.result, expires_at = excluded.expires_at`,
  );
  const sweep = db.prepare<[number, number]>(
    `DELETE FROM gatehouse_replay WHERE key IN
     (SELECT key FROM gatehouse_replay WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
  );
  return {
    begin: db.transaction((key: string, digest: string, leaseMs: number, now: number): ReplayBegin => {
      if (claim.run({ key, digest, expiresAt: now + leaseMs, now }).changes === 1) {
        sweep.run(now, batch);
        return STARTED;
      }
      const row = read.get(key);
      if (!row) throw new Error('A replay record vanished inside its own transaction.');
      if (row.state === 'running') return { state: 'running', argumentsDigest: row.arguments_digest };
      const result = JSON.parse(row.result ?? 'null') as JsonObject;
      return { state: 'completed', argumentsDigest: row.arguments_digest, result };
    }),
    complete: db.transaction(
      (key: string, digest: string, result: JsonObject, windowMs: number, now: number): void => {
        complete.run({ key, digest, result: JSON.stringify(result), expiresAt: now + windowMs });
        sweep.run(now, batch);
      },
    ),
    release: db.prepare<[string]>("DELETE FROM gatehouse_replay WHERE key = ? AND state = 'running'"),
    purge: db.prepare<[number]>('DELETE FROM gatehouse_replay WHERE expires_at <= ?'),
  };
}

/**
 * A {@link ReplayStore} in the `gatehouse_replay` table (I10). `begin` claims a
 * key with one upsert that only overwrites an expired row, so of any number of
 * concurrent callers, across connections and processes, exactly one gets
 * `started`. Expired rows are invisible at once and swept by later writes.
 * The `…Sync` methods run inside a host's `db.transaction`, so a write and its
 * replay record commit together. Requires `migrateGatehouseSchema(db)` first.
 *
 * @example
 * const replay = new SqliteReplayStore(db);
 */
export class SqliteReplayStore implements ReplayStore {
  readonly #sql: ReturnType<typeof prepareReplay>;

  constructor(db: SqliteDatabase, options: SqliteReplayStoreOptions = {}) {
    assertSchema(db, 'SqliteReplayStore');
    this.#sql = prepareReplay(db, sweepBatch('SqliteReplayStore', options.sweepBatch));
  }

  /**
   * Synchronous {@link ReplayStore.begin}: claims `key` for `leaseMs` unless a live
   * record exists, in one IMMEDIATE transaction (a savepoint inside the host's).
   */
  beginSync(key: string, argumentsDigest: string, leaseMs: number, now: number): ReplayBegin {
    return this.#sql.begin.immediate(key, argumentsDigest, leaseMs, now);
  }

  /**
   * Synchronous {@link ReplayStore.complete}. Call it inside the host's
   * `db.transaction` that performs the write, so both commit or neither does.
   */
  completeSync(
    key: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
  ): void {
    this.#sql.complete.immediate(key, argumentsDigest, result, windowMs, now);
  }

  /** Synchronous {@link ReplayStore.release}: forgets a running key; a completed result stays. */
  releaseSync(key: string): void {
    this.#sql.release.run(key);
  }

  /** Deletes every record expired at `now` (the opportunistic sweep's big brother); returns how many. */
  purgeExpired(now: number): number {
    return this.#sql.purge.run(now).changes;
  }

  async begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin> {
    return this.beginSync(key, argumentsDigest, leaseMs, now);
  }

  async complete(
    key: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
  ): Promise<void> {
    this.completeSync(key, argumentsDigest, result, windowMs, now);
  }

  async release(key: string): Promise<void> {
    this.releaseSync(key);
  }
}
