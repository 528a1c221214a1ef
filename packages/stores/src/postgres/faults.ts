import { ToolError, TransactionConflict } from '@gatehousejs/core';

/**
 * What a driver error means for the call that met it: the database could not
 * be reached or would not run the statement now (`unavailable`: retry later),
 * or the transaction lost to a concurrent one (`conflict`: run it again).
 * Anything else (a constraint, a syntax error, a bug) is not a fault of the
 * database and keeps its own error.
 */
export type PostgresFault = 'unavailable' | 'conflict';

/**
 * SQLSTATEs that mean "not now": class 08 (connection exceptions), the
 * server shutting down or starting (57P01–57P03), an idle session ended
 * (57P05, 25P03), a statement cancelled by `statement_timeout` (57014) or
 * `lock_timeout` (55P03), and too many connections (53300).
 */
const UNAVAILABLE_STATE = /^(08[0-9A-Z]{3}|57P0[1235]|57014|55P03|53300|25P03)$/;
const CONFLICT_STATE = /^(40001|40P01)$/;

/** Socket errors of a server that went away or never answered. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What `pg` and `pg-pool` throw, without a code, when a connection ends or a checkout times out. */
const DRIVER_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Query read timeout)/;

/**
 * Classifies an error a `pg` pool or client threw (see {@link PostgresFault});
 * `undefined` for anything else. Reads the SQLSTATE, the socket error code
 * (of an `AggregateError`'s parts too) and the driver's own messages.
 */
export function postgresFaultOf(error: unknown): PostgresFault | undefined {
  if (typeof error !== 'object' || error === null || ToolError.is(error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONFLICT_STATE.test(code)) return 'conflict';
    if (UNAVAILABLE_STATE.test(code) || NETWORK_CODES.has(code)) return 'unavailable';
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && DRIVER_MESSAGES.test(message)) return 'unavailable';
  const parts = (error as { errors?: unknown }).errors;
  if (Array.isArray(parts) && parts.some((part) => postgresFaultOf(part) === 'unavailable'))
    return 'unavailable';
  return undefined;
}

/**
 * The error a call should meet instead of a driver's: `store_unavailable`
 * (a {@link TransactionConflict} for a conflict), with the driver's error as
 * `cause` and never its text, which may name hosts, users or statements.
 * Anything that is not a fault comes back as it is.
 */
export function translatePostgresError(error: unknown): unknown {
  const fault = postgresFaultOf(error);
  if (fault === 'conflict') return new TransactionConflict({ cause: error });
  if (fault === 'unavailable') {
    return new ToolError(
      {
        code: 'store_unavailable',
        message: 'The database could not be reached or did not answer in time.',
        fix: 'Retry shortly.',
      },
      { cause: error },
    );
  }
  return error;
}
