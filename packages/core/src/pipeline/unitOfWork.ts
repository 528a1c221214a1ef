import { ConfigurationError } from '../errors.js';

/**
 * The transaction core opens around a write's execution (I10, I15): the
 * check-then-act guards, the tool's `run`, its audit row and its replay
 * completion all happen inside `run(work)`, and commit together or not at
 * all. The handle `work` receives is passed to the host's `services`
 * factory, so the product's own writes join the same transaction.
 *
 * A refusal is never rolled back into acceptance: core writes refusal
 * bookkeeping (a dead confirm token, a renewed preview) outside any unit of
 * work, so it commits on its own.
 */
export interface UnitOfWork<THandle = unknown> {
  /**
   * Whether the host's writes, the audit rows and the replay records commit
   * together. `false` is the weaker promise: a write may stand without its
   * audit row or replay record when those fail after it (say so in the host's docs).
   */
  readonly atomic: boolean;
  /**
   * The longest a unit, or a store statement beside it, may wait for a
   * connection or a lock before it fails (a pool's checkout timeout, SQLite's
   * lock wait), in ms. Core checks at build that a claim's lease outlasts a
   * renewal interval plus this wait, so a renewal that waits its longest
   * still lands before the lease lapses. Absent: no wait to allow for.
   */
  readonly maxWaitMs?: number;
  /** Runs `work` in one transaction: commits when it resolves, rolls back when it throws. */
  run<T>(work: (handle: THandle) => Promise<T>): Promise<T>;
  /**
   * Holds a lock on `key` until the unit ends, so two units checking the same
   * business key run one after the other (the duplicate check of a create
   * tool, I11, calls it before its lookup). Optional: a unit of work that
   * already runs one unit at a time (SQLite) needs none. `handle` is the one
   * `run` passed to `work`.
   */
  serialize?(handle: THandle, key: string): Promise<void>;
}

/**
 * The unit of work of a host whose data and guard stores are not in one
 * database (or live in memory): each store commits on its own, so the
 * promise is weaker (`atomic: false`). Declare it explicitly with
 * `createServer({ unitOfWork: separateCommits() })`.
 */
export function separateCommits(): UnitOfWork<undefined> {
  return Object.freeze({
    atomic: false,
    run: <T>(work: (handle: undefined) => Promise<T>) => work(undefined),
  });
}

/** Validates a unit of work's shape up front. */
export function checkUnitOfWork(unit: unknown): asserts unit is UnitOfWork {
  const candidate = unit as Partial<UnitOfWork> | undefined;
  if (
    typeof candidate?.run !== 'function' ||
    typeof candidate.atomic !== 'boolean' ||
    (candidate.maxWaitMs !== undefined &&
      (!Number.isFinite(candidate.maxWaitMs) || candidate.maxWaitMs < 0)) ||
    (candidate.serialize !== undefined && typeof candidate.serialize !== 'function')
  ) {
    throw new ConfigurationError(
      'createServer: unitOfWork needs run(work) and atomic (true or false), serialize, if given, must be a function and maxWaitMs a non-negative number; use separateCommits() when the stores commit on their own.',
    );
  }
}
