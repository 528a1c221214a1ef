import type { SqliteDatabase } from '../database.js';
import type { WriteLock } from '../unitOfWork.js';
import { type LockWaitOptions, lockWait, retryWhileBusy } from './lockWait.js';

/** Options of the stores that write: the lock they share with the unit of work, and how long they wait for another connection's. */
export interface LockOptions extends LockWaitOptions {
  /**
   * The write lock shared with `sqliteUnitOfWork` and the host's own writes on
   * this handle (`createSqliteStores` passes its own). A write made outside a
   * unit of work waits for it, so it never lands inside another call's open
   * transaction and is never rolled back with it. Without a lock, writes run at once.
   */
  readonly lock?: WriteLock;
}

/**
 * Runs a store write: at once inside a unit of work (`unit` is its handle;
 * the statement joins its transaction, which holds the database's write
 * lock already), else under the lock, committing on its own, and retried on
 * timers while another connection holds the database, until `lockWaitMs`
 * after the call. `on` is the connection `work` writes on (a function: the
 * one to use at the time of the write), handed to `work`. Refuses a bad `lockWaitMs`
 * (ConfigurationError) when built.
 */
export function writer(on: SqliteDatabase | (() => SqliteDatabase), owner: string, options: LockOptions) {
  const waitMs = lockWait(owner, options.lockWaitMs);
  const { lock } = options;
  const connection = typeof on === 'function' ? on : () => on;
  return <T>(unit: unknown, work: (db: SqliteDatabase) => T): Promise<T> => {
    if (unit !== undefined) {
      try {
        return Promise.resolve(work(connection()));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const deadline = Date.now() + waitMs;
    const attempt = () => {
      const db = connection();
      return retryWhileBusy(db, () => work(db), deadline);
    };
    return lock ? lock.run(attempt) : attempt();
  };
}
