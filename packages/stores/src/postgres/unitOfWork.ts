import { ConfigurationError, ToolError, TransactionConflict, type UnitOfWork } from '@gatehousejs/core';
import type pg from 'pg';
import { guardPostgresPool } from './pool.js';
import { advisoryKey, prepared } from './sql.js';

const SERIALIZE = prepared('SELECT pg_advisory_xact_lock($1)');

const unavailable = (message: string, cause?: unknown) =>
  new ToolError(
    { code: 'store_unavailable', message: `${message} Nothing ran.`, fix: 'Retry shortly.' },
    { cause },
  );

/** Returns the client to the pool, destroyed when `broken` (the guarded pool keeps its error listener). */
function release(client: pg.PoolClient, broken = false): void {
  client.release(broken);
}

/** Opens a transaction on a client of the pool, or throws `store_unavailable` with nothing begun. */
async function begin(pool: pg.Pool): Promise<pg.PoolClient> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw unavailable('The database could not be reached.', error);
  }
  try {
    await client.query('BEGIN');
    return client;
  } catch (error) {
    release(client, true);
    throw unavailable('The database could not open a transaction.', error);
  }
}

/** Rolls back and returns the client; a client that cannot roll back is destroyed, never reused. */
async function rollback(client: pg.PoolClient): Promise<void> {
  try {
    await client.query('ROLLBACK');
    release(client);
  } catch {
    release(client, true);
  }
}

/** A fault met inside the unit, after its rollback: whatever the statement was, nothing of the unit was kept. */
function rolledBack(error: unknown): unknown {
  if (!ToolError.is(error) || error.code !== 'store_unavailable' || TransactionConflict.is(error))
    return error;
  if (error.message.endsWith('Nothing ran.')) return error;
  return unavailable(error.message, error.cause);
}

/** `pg`'s refusal of a query on a client whose connection had already failed: the statement never left. */
const neverSent = (error: ToolError): boolean =>
  /is not queryable/.test(String((error.cause as { message?: unknown } | undefined)?.message ?? ''));

/**
 * What a failed `COMMIT` means. A conflict (a serialization failure found
 * at commit) rolled everything back and may run again; a connection that
 * had failed before the `COMMIT` was sent committed nothing; one lost while
 * the `COMMIT` was on its way leaves the outcome unknown (`outcome_unknown`,
 * retryable: the replay record tells a retry whether it landed). Any other
 * error (a deferred constraint) is the host's and stays as it is.
 */
function commitFailure(error: unknown): unknown {
  if (TransactionConflict.is(error) || !ToolError.is(error) || error.code !== 'store_unavailable')
    return error;
  if (neverSent(error)) return unavailable('The database connection was lost before COMMIT.', error.cause);
  return new ToolError(
    {
      code: 'outcome_unknown',
      message:
        'The database connection was lost while the change committed, so whether it took effect is not known.',
      fix: 'Send the same call again shortly: it returns the result if the change took effect, or runs it once.',
    },
    { cause: error.cause },
  );
}

/**
 * The unit of work on a PostgreSQL pool (I10, I15): core runs each write's
 * guards, `run`, audit row and replay completion between `BEGIN` and `COMMIT`
 * on one client of `pool`; anything thrown rolls everything back. The handle
 * `work` receives is that `pg` `PoolClient`: build the host's services on it,
 * so their statements join the transaction (and never call `release` on it).
 * The pool is guarded ({@link guardPostgresPool}), so a database fault met
 * anywhere in the unit (unreachable, shut down, a statement timeout) rolls
 * back and answers `store_unavailable`, a serialization failure or deadlock
 * is a `TransactionConflict` (core runs the unit again), and a connection
 * lost during `COMMIT` answers `outcome_unknown`. A transaction that
 * PostgreSQL aborted (a statement failed and the error was caught) is rolled
 * back, never reported as committed.
 * `serialize(client, key)` takes `pg_advisory_xact_lock` on a 64-bit key
 * from SHA-256 of `key`, held until the unit ends, so two units checking one
 * business key (the duplicate check, I11) run one after the other. Atomic:
 * the product's write, its audit row and its replay record commit together
 * or not at all. `maxWaitMs` is the pool's `connectionTimeoutMillis`.
 *
 * @example
 * gh.createServer({ …, unitOfWork: postgresUnitOfWork(pool) }); // or stores.unitOfWork
 */
export function postgresUnitOfWork(pool: pg.Pool): UnitOfWork<pg.PoolClient> {
  if (typeof (pool as Partial<pg.Pool> | null)?.connect !== 'function') {
    throw new ConfigurationError('postgresUnitOfWork: pass a pg Pool (createPostgresPool).');
  }
  guardPostgresPool(pool);
  const waitMs = (pool as Partial<pg.Pool>).options?.connectionTimeoutMillis;
  return Object.freeze({
    atomic: true,
    ...(typeof waitMs === 'number' && waitMs > 0 ? { maxWaitMs: waitMs } : {}),
    async run<T>(work: (handle: pg.PoolClient) => Promise<T>): Promise<T> {
      const client = await begin(pool);
      let result: T;
      try {
        result = await work(client);
      } catch (error) {
        await rollback(client);
        throw rolledBack(error);
      }
      let committed: pg.QueryResult;
      try {
        committed = await client.query('COMMIT');
      } catch (error) {
        release(client, true);
        throw commitFailure(error);
      }
      release(client);
      // COMMIT of an aborted transaction answers ROLLBACK instead of failing.
      if (committed.command !== 'COMMIT') {
        throw new Error(
          'postgresUnitOfWork: PostgreSQL rolled the transaction back (a statement in it failed).',
        );
      }
      return result;
    },
    async serialize(handle: pg.PoolClient, key: string): Promise<void> {
      await handle.query({ ...SERIALIZE, values: [advisoryKey(`gatehouse:serialize\u0000${key}`)] });
    },
  });
}
