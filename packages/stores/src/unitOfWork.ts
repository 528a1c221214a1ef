import { ConfigurationError, ToolError, type UnitOfWork } from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import {
  isBusy,
  type LockWaitOptions,
  lockWait,
  retryWhileBusy,
  withoutBusyWait,
} from './internal/lockWait.js';

/**
 * Serializes work on one database handle: core's units of work, the stores'
 * own writes outside them, and the host's writes (REST handlers, jobs).
 */
export interface WriteLock {
  /** Runs `work` once every earlier holder has settled; the next waiter starts when it settles. */
  run<T>(work: () => T | Promise<T>): Promise<T>;
}

/**
 * A first-come, first-served async mutex. `createSqliteStores` makes one and
 * shares it between its stores and its unit of work; take the same lock
 * (`stores.lock`) for the host's other writes on the handle, so none lands
 * inside an open MCP transaction (it would commit or roll back with it).
 *
 * @example
 * await stores.lock.run(() => bookings.create(input)); // never inside an MCP write's transaction
 */
export function createWriteLock(): WriteLock {
  let tail: Promise<unknown> = Promise.resolve();
  const settle = () => undefined;
  return Object.freeze({
    run<T>(work: () => T | Promise<T>): Promise<T> {
      const turn = tail.then(work);
      tail = turn.then(settle, settle);
      return turn;
    },
  });
}

function checkHandle(db: SqliteDatabase): void {
  const handle = db as Partial<SqliteDatabase> | null | undefined;
  if (
    typeof handle?.prepare !== 'function' ||
    typeof handle.inTransaction !== 'boolean' ||
    handle.open !== true
  ) {
    throw new ConfigurationError('sqliteUnitOfWork: pass an open better-sqlite3 database handle.');
  }
}

const unavailable = (message: string) =>
  new ToolError({ code: 'store_unavailable', message: `${message} Nothing ran.`, fix: 'Retry shortly.' });

/** Options of {@link sqliteUnitOfWork}. */
export interface SqliteUnitOfWorkOptions extends LockWaitOptions {}

const beginFailed = (error: unknown) =>
  unavailable(isBusy(error) ? 'The database is busy.' : 'The database could not start a transaction.');

/** Retries `BEGIN IMMEDIATE` on timers, never in the native busy handler, until `deadline`; then `store_unavailable`. */
async function beginBy(db: SqliteDatabase, begin: () => unknown, deadline: number): Promise<void> {
  try {
    await retryWhileBusy(db, begin, deadline);
  } catch (error) {
    throw beginFailed(error);
  }
}

/** `BEGIN IMMEDIATE` without a tick in between when it succeeds at once; a promise only when it must wait. */
function startTransaction(
  db: SqliteDatabase,
  begin: () => unknown,
  deadline: number,
): Promise<void> | undefined {
  try {
    withoutBusyWait(db, begin);
    return undefined;
  } catch (error) {
    if (!isBusy(error) || db.inTransaction) throw beginFailed(error);
    return beginBy(db, begin, deadline);
  }
}

/**
 * The unit of work on one SQLite handle (I10, I15): core runs each write's
 * guards, `run`, audit row and replay completion between `BEGIN IMMEDIATE`
 * and `COMMIT` on `db`, under `lock`; anything thrown rolls everything back.
 * The handle `work` receives is `db` itself: build the host's services on it
 * (better-sqlite3 is synchronous, and every statement on the handle joins
 * the open transaction, which is why every other writer takes the same lock).
 * While another connection holds the database (a backup, a migration,
 * another process), `BEGIN IMMEDIATE` is retried on timers, never blocking
 * the event loop, until `lockWaitMs` (default 5,000) after the call; then,
 * as with a transaction already open on the handle, the answer is
 * `store_unavailable` and nothing runs. Statements inside the open unit need
 * no wait: its transaction holds the write lock. Atomic: the product's
 * write, the audit row and the replay record commit together or not at all.
 * Refuses a bad handle, lock or `lockWaitMs` (ConfigurationError).
 * `maxWaitMs` is `lockWaitMs`: a store write outside the unit waits that long too.
 *
 * @example
 * gh.createServer({ …, unitOfWork: stores.unitOfWork });
 */
export function sqliteUnitOfWork(
  db: SqliteDatabase,
  lock: WriteLock,
  options: SqliteUnitOfWorkOptions = {},
): UnitOfWork<SqliteDatabase> {
  checkHandle(db);
  if (typeof lock?.run !== 'function')
    throw new ConfigurationError('sqliteUnitOfWork: lock must have run().');
  const waitMs = lockWait('sqliteUnitOfWork', options.lockWaitMs);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const undo = () => {
    if (db.inTransaction) rollback.run();
  };
  return Object.freeze({
    atomic: true,
    maxWaitMs: waitMs,
    run<T>(work: (handle: SqliteDatabase) => Promise<T>): Promise<T> {
      const deadline = Date.now() + waitMs;
      return lock.run(async () => {
        if (db.inTransaction) throw unavailable('Another transaction is open on the database handle.');
        const waiting = startTransaction(db, () => begin.run(), deadline);
        if (waiting) await waiting;
        let result: T;
        try {
          result = await work(db);
        } catch (error) {
          undo();
          throw error;
        }
        if (!db.inTransaction)
          throw new Error('sqliteUnitOfWork: SQLite ended the transaction before COMMIT.');
        try {
          commit.run();
        } catch (error) {
          undo();
          throw error;
        }
        return result;
      });
    },
  });
}
