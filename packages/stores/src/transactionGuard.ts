import {
  type AuditStore,
  auditRow,
  ConfigurationError,
  defineGuard,
  type Guard,
  type Next,
  type Outcome,
  refuse,
  type ToolCall,
  ToolError,
} from '@gatehousejs/core';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

/**
 * Serializes work on one database handle: the MCP write transactions of
 * {@link transactionGuard} and the host's own writes (REST handlers, jobs).
 */
export interface WriteLock {
  /** Runs `work` once every earlier holder has settled; the next waiter starts when it settles. */
  run<T>(work: () => T | Promise<T>): Promise<T>;
}

/**
 * A first-come, first-served async mutex. Share it between
 * {@link transactionGuard} and the host's other write paths on the same
 * handle, so a host write never runs inside an open MCP transaction (it would
 * commit or roll back with it).
 *
 * @example
 * const lock = createWriteLock();
 * await lock.run(() => bookings.create(input)); // never inside an MCP write's transaction
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

/** Options of {@link transactionGuard}. */
export interface TransactionGuardOptions {
  /** The lock shared with the host's other writes on this handle; default a lock of its own. */
  readonly lock?: WriteLock;
  /**
   * Where to record a port violation (I8) again after the rollback erased the
   * row core wrote inside the transaction. Pass the server's audit store.
   */
  readonly audit?: AuditStore;
  /** Receives a failure to write that audit row (the call is refused either way). */
  readonly onStoreError?: (error: unknown) => void;
  readonly clock?: () => number;
}

function checkHandle(db: SqliteDatabase): void {
  const handle = db as Partial<SqliteDatabase> | null | undefined;
  if (
    typeof handle?.prepare !== 'function' ||
    typeof handle.inTransaction !== 'boolean' ||
    handle.open !== true
  ) {
    throw new ConfigurationError('transactionGuard: pass an open better-sqlite3 database handle.');
  }
}

const unavailable = (message: string): Outcome =>
  refuse({ code: 'store_unavailable', message: `${message} Nothing ran.`, fix: 'Retry shortly.' });

/** The audit row of a port violation whose first record was rolled back with the write. */
function violationRow(call: ToolCall, error: ToolError, now: number) {
  const { connection } = call;
  const { port, port_effect: portEffect, phase } = error.details;
  return auditRow(
    {
      channel: connection.channel,
      tenantId: connection.tenantId,
      connectionId: connection.connectionId,
      clientName: connection.clientName,
      actorId: connection.creatorId,
      action: call.tool.name,
      outcome: 'violation',
      note: `reached ${String(portEffect)} port ${String(port)} during ${String(phase)}; the write was rolled back`,
    },
    now,
  );
}

/** The handle and the prepared statements of one guard. */
interface TransactionSql {
  readonly db: SqliteDatabase;
  readonly begin: Statement;
  readonly commit: Statement;
  readonly rollback: Statement;
}

/** Runs `next` between BEGIN IMMEDIATE and COMMIT; anything but a result rolls back. */
async function inTransaction(
  sql: TransactionSql,
  next: Next,
  onThrow: (error: unknown) => Promise<void>,
): Promise<Outcome> {
  const { db } = sql;
  const undo = () => {
    if (db.inTransaction) sql.rollback.run();
  };
  if (db.inTransaction) return unavailable('Another transaction is open on the database handle.');
  try {
    sql.begin.run();
  } catch {
    return unavailable('The database is busy.');
  }
  let outcome: Outcome;
  try {
    outcome = await next();
  } catch (error) {
    undo();
    await onThrow(error);
    throw error;
  }
  if (outcome.kind !== 'result') {
    undo();
    return outcome;
  }
  if (!db.inTransaction) throw new Error('transactionGuard: SQLite ended the transaction before COMMIT.');
  try {
    sql.commit.run();
  } catch (error) {
    undo();
    throw error;
  }
  return outcome;
}

/**
 * Commits a silent write, its replay record and its audit row in one SQLite
 * transaction (I10, I15), so a crash leaves all three or none.
 *
 * Install it first among the write guards, outside `replayGuard`:
 * `guards: [switches.guard, rateGuard(…), transactionGuard(db, { lock, audit }), replayGuard({ store })]`.
 * Every `write` call (built-in `confirm_action` and `reject_action` included)
 * waits for the lock, then runs the rest of its chain between `BEGIN IMMEDIATE`
 * and `COMMIT` on `db`, the handle the stores and the product share. A
 * result commits; a refusal or a throw rolls back everything the call wrote
 * (the replay claim too, so a retry runs). The stores' own transactions
 * become savepoints inside it. If the write lock cannot be taken within the
 * busy timeout, or a transaction is already open on the handle, the call is
 * refused with `store_unavailable` and nothing runs. A transaction SQLite
 * ended early, or a failed `COMMIT`, becomes an internal error and keeps
 * nothing. Keep the work inside synchronous (better-sqlite3 is): any other
 * statement that runs on the handle while the transaction is open joins it,
 * which is why the host's own writes take the same `lock`. Throws a
 * `ConfigurationError` for anything but an open better-sqlite3 handle.
 *
 * @example
 * const lock = createWriteLock();
 * gh.createServer({ …, guards: [transactionGuard(db, { lock, audit }), replayGuard({ store: stores.replay })] });
 */
export function transactionGuard(db: SqliteDatabase, options: TransactionGuardOptions = {}): Guard {
  checkHandle(db);
  const lock = options.lock ?? createWriteLock();
  if (typeof lock.run !== 'function') throw new ConfigurationError('transactionGuard: lock must have run().');
  const clock = options.clock ?? Date.now;
  const sql: TransactionSql = {
    db,
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
  };
  const recordViolation = async (call: ToolCall, error: unknown) => {
    if (!options.audit || !ToolError.is(error) || error.code !== 'effect_violation') return;
    try {
      await options.audit.append(violationRow(call, error, clock()));
    } catch (failure) {
      options.onStoreError?.(failure);
    }
  };
  return defineGuard({
    name: 'transaction',
    effects: ['write'],
    handle: function transaction(call, next) {
      return lock.run(() => inTransaction(sql, next, (error) => recordViolation(call, error)));
    },
  });
}
