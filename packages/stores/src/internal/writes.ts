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
 * after the call. Refuses a bad `lockWaitMs` (ConfigurationError) when built.
 */
export function writer(db: SqliteDatabase, owner: string, options: LockOptions) {
  const waitMs = lockWait(owner, options.lockWaitMs);
  const { lock } = options;
  return <T>(unit: unknown, work: () => T): Promise<T> => {
    if (unit !== undefined) {
      try {
        return Promise.resolve(work());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const deadline = Date.now() + waitMs;
    const attempt = () => retryWhileBusy(db, work, deadline);
    return lock ? lock.run(attempt) : attempt();
  };
}
