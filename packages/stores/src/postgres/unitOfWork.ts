import { ConfigurationError, ToolError, type UnitOfWork } from '@gatehousejs/core';
import type pg from 'pg';
import { advisoryKey } from './sql.js';

const unavailable = (message: string) =>
  new ToolError({ code: 'store_unavailable', message: `${message} Nothing ran.`, fix: 'Retry shortly.' });

/** A connection lost while checked out emits `error` on the client; the next query fails instead. */
const ignore = (): undefined => undefined;

/** Returns the client to the pool (destroyed when `broken`), without its checkout error listener. */
function release(client: pg.PoolClient, broken = false): void {
  client.removeListener('error', ignore);
  client.release(broken);
}

/** Opens a transaction on a client of the pool, or throws `store_unavailable` with nothing begun. */
async function begin(pool: pg.Pool): Promise<pg.PoolClient> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch {
    throw unavailable('The database could not be reached.');
  }
  client.on('error', ignore);
  try {
    await client.query('BEGIN');
    return client;
  } catch {
    release(client, true);
    throw unavailable('The database could not open a transaction.');
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

/**
 * The unit of work on a PostgreSQL pool (I10, I15): core runs each write's
 * guards, `run`, audit row and replay completion between `BEGIN` and `COMMIT`
 * on one client of `pool`; anything thrown rolls everything back. The handle
 * `work` receives is that `pg` `PoolClient`: build the host's services on it,
 * so their statements join the transaction (and never call `release` on it).
 * A database that cannot be reached or cannot begin is `store_unavailable`
 * and nothing runs. A transaction that PostgreSQL aborted (a statement failed
 * and the error was caught) is rolled back, never reported as committed.
 * `serialize(client, key)` takes `pg_advisory_xact_lock` on a 64-bit key
 * from SHA-256 of `key`, held until the unit ends, so two units checking one
 * business key (the duplicate check, I11) run one after the other. Atomic:
 * the product's write, its audit row and its replay record commit together or not at all.
 *
 * @example
 * gh.createServer({ …, unitOfWork: postgresUnitOfWork(pool) }); // or stores.unitOfWork
 */
export function postgresUnitOfWork(pool: pg.Pool): UnitOfWork<pg.PoolClient> {
  if (typeof (pool as Partial<pg.Pool> | null)?.connect !== 'function') {
    throw new ConfigurationError('postgresUnitOfWork: pass a pg Pool (createPostgresPool).');
  }
  return Object.freeze({
    atomic: true,
    async run<T>(work: (handle: pg.PoolClient) => Promise<T>): Promise<T> {
      const client = await begin(pool);
      let result: T;
      try {
        result = await work(client);
      } catch (error) {
        await rollback(client);
        throw error;
      }
      let committed: pg.QueryResult;
      try {
        committed = await client.query('COMMIT');
      } catch (error) {
        release(client, true);
        throw error;
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
      await handle.query('SELECT pg_advisory_xact_lock($1)', [
        advisoryKey(`gatehouse:serialize\u0000${key}`),
      ]);
    },
  });
}
