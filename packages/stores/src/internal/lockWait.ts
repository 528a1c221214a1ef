import type { SqliteDatabase } from '../database.js';
import { duration } from './options.js';

/** How long a store write or a unit of work waits for another connection's write lock by default. */
export const DEFAULT_LOCK_WAIT_MS = 5_000;

/** The first pause between two attempts; it doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 2;
const MAX_BACKOFF_MS = 50;

/** Options of the writers that wait for another connection's write lock. */
export interface LockWaitOptions {
  /**
   * How long a write made outside a unit of work, or a unit of work's
   * `BEGIN IMMEDIATE`, waits for another connection's write lock (a backup,
   * a migration, another process on the file) before it fails: a store write
   * rejects with the `SQLITE_BUSY` error, a unit of work answers
   * `store_unavailable`. The wait never holds the event loop: each attempt
   * fails at once (busy timeout 0) and the next one is scheduled on a timer,
   * 2 ms doubling to 50 ms, with jitter. Counted from the call, so time spent
   * queued behind this handle's own writers counts too. Default 5,000; 0 tries once.
   */
  readonly lockWaitMs?: number;
}

/** Checks a `lockWaitMs` option up front (ConfigurationError when it is not a non-negative integer). */
export const lockWait = (owner: string, value: number | undefined): number =>
  duration(owner, 'lockWaitMs', value ?? DEFAULT_LOCK_WAIT_MS);

/** Whether `error` is SQLite's "another connection holds the lock" (SQLITE_BUSY or SQLITE_LOCKED, any variant). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
}

/**
 * The busy timeout of connections whose value the stores know without asking
 * SQLite: set by `configureDatabase` (it writes the value) and by the
 * connections the stores open themselves (always 0). Reading it back costs a
 * `PRAGMA` that better-sqlite3 compiles on every call, so known connections skip it.
 */
const knownBusyTimeouts = new WeakMap<SqliteDatabase, number>();

/** Records `ms` as the busy timeout of `db`, set by the caller a moment ago. */
export function rememberBusyTimeout(db: SqliteDatabase, ms: number): void {
  knownBusyTimeouts.set(db, ms);
}

/**
 * Runs `attempt` with the connection's busy handler off, so a held lock
 * throws `SQLITE_BUSY` at once instead of spinning in the native call; the
 * host's busy timeout is restored before this returns. A connection whose
 * busy timeout is known to be 0 runs no `PRAGMA` at all; a known non-zero one
 * runs two (off, back on); an unknown one reads it first.
 */
export function withoutBusyWait<T>(db: SqliteDatabase, attempt: () => T): T {
  const configured = knownBusyTimeouts.get(db) ?? (db.pragma('busy_timeout', { simple: true }) as number);
  if (configured === 0) return attempt();
  db.pragma('busy_timeout = 0');
  try {
    return attempt();
  } finally {
    db.pragma(`busy_timeout = ${configured}`);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Half of `ms` plus a random part of the other half, so waiting processes drift apart. */
const jittered = (ms: number) => ms / 2 + Math.random() * (ms / 2);

/**
 * Runs `attempt` until it stops failing with a busy lock or `deadline`
 * (a `Date.now()` value) passes, pausing on timers between attempts, then
 * rethrows the last busy error. Any other error, and a busy error inside a
 * transaction already open on the handle (not safe to repeat), is thrown at
 * once. `attempt` must leave nothing behind when it throws (one statement,
 * or a transaction that rolls back).
 */
export async function retryWhileBusy<T>(db: SqliteDatabase, attempt: () => T, deadline: number): Promise<T> {
  let backoff = FIRST_BACKOFF_MS;
  for (;;) {
    try {
      return withoutBusyWait(db, attempt);
    } catch (error) {
      const left = deadline - Date.now();
      if (!isBusy(error) || db.inTransaction || left <= 0) throw error;
      await sleep(Math.min(left, jittered(backoff)));
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
  }
}
