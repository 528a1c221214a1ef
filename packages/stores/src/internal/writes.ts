import type { WriteLock } from '../unitOfWork.js';

/** Options of the stores that write: the lock they share with the unit of work. */
export interface LockOptions {
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
 * the statement joins its transaction), else under the lock, committing on its own.
 */
export function writer(lock: WriteLock | undefined) {
  return <T>(unit: unknown, work: () => T): Promise<T> => {
    if (unit === undefined && lock) return lock.run(work);
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
