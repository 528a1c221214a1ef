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

/** A client of the pool, or `store_unavailable` with nothing begun. */
async function checkOut(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw unavailable('The database could not be reached.', error);
  }
}

type Query = (...args: unknown[]) => unknown;

/**
 * The transaction of one unit, begun by its first statement rather than on
 * its own. A unit whose first statement is the advisory lock (`serialize`,
 * the duplicate check) sends `BEGIN` and the lock as one simple query: one
 * round trip, and when `BEGIN` fails the lock does not run. Any other first
 * statement waits for its own `BEGIN` to succeed before it is sent, so no
 * statement of a unit ever runs outside its transaction. Until the unit
 * ends, the client's `query` is wrapped for this; `end()` puts it back.
 */
class LazyTransaction {
  readonly #client: pg.PoolClient;
  readonly #query: Query;
  /** The statement that began the transaction, once sent. */
  #started: Promise<void> | undefined;
  /** Whether it succeeded: from then on statements go straight through. */
  #open = false;
  /** Why it failed, when it did: the unit then fails whatever its other statements answered. */
  #failure: { readonly error: unknown } | undefined;

  constructor(client: pg.PoolClient) {
    this.#client = client;
    this.#query = client.query as unknown as Query;
    const transaction = this;
    (client as { query: Query }).query = function query(...args: unknown[]): unknown {
      return transaction.#send(args);
    };
  }

  /** Whether the transaction was begun (or tried): only then is there anything to commit or roll back. */
  get begun(): boolean {
    return this.#started !== undefined;
  }

  /** Throws, as `store_unavailable`, when the transaction could not begin. */
  check(): void {
    if (this.#failure) throw unavailable('The database could not open a transaction.', this.#failure.error);
  }

  /** Takes the unit's advisory lock on `lockKey` (a 64-bit integer), beginning the transaction in the same round trip. */
  async lock(lockKey: string): Promise<void> {
    if (this.#started === undefined) {
      if (!/^-?\d{1,19}$/.test(lockKey))
        throw new Error('postgresUnitOfWork: a lock key is a 64-bit integer.');
      await this.#start(`BEGIN; SELECT pg_advisory_xact_lock('${lockKey}'::bigint)`);
      return;
    }
    await this.#send([{ ...SERIALIZE, values: [lockKey] }]);
  }

  /** Gives the client its own `query` back, before it returns to the pool. */
  end(): void {
    (this.#client as { query: Query }).query = this.#query;
  }

  /** Sends `text`, which begins the transaction; rejects (and records why) when it fails. */
  #start(text: string): Promise<void> {
    this.#started = (this.#query.call(this.#client, text) as Promise<unknown>).then(
      () => {
        this.#open = true;
      },
      (error: unknown) => {
        this.#failure ??= { error };
        throw error;
      },
    );
    return this.#started;
  }

  /** One call of `query` in any of `pg`'s forms, sent once the transaction is open. */
  #send(args: unknown[]): unknown {
    const forward = (): unknown => this.#query.apply(this.#client, args);
    if (this.#open) return forward();
    const begun = this.#started ?? this.#start('BEGIN');
    const last = args.at(-1);
    if (typeof last === 'function') {
      begun.then(forward, (error: unknown) => (last as Query)(error));
      return undefined;
    }
    const submittable = args[0] as { submit?: unknown; handleError?: (error: unknown) => void } | null;
    if (typeof submittable?.submit === 'function') {
      begun.then(forward, (error: unknown) => submittable.handleError?.(error));
      return submittable;
    }
    return begun.then(forward);
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
  // The transaction of each unit in progress, by its client.
  const units = new WeakMap<pg.PoolClient, LazyTransaction>();
  const waitMs = (pool as Partial<pg.Pool>).options?.connectionTimeoutMillis;
  return Object.freeze({
    atomic: true,
    ...(typeof waitMs === 'number' && waitMs > 0 ? { maxWaitMs: waitMs } : {}),
    async run<T>(work: (handle: pg.PoolClient) => Promise<T>): Promise<T> {
      const client = await checkOut(pool);
      const transaction = new LazyTransaction(client);
      units.set(client, transaction);
      const done = () => {
        units.delete(client);
        transaction.end();
      };
      let result: T;
      try {
        result = await work(client);
        transaction.check();
      } catch (error) {
        done();
        if (!transaction.begun) release(client);
        else await rollback(client);
        throw rolledBack(error);
      }
      done();
      if (!transaction.begun) {
        release(client); // nothing was sent: nothing to commit
        return result;
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
      const lockKey = advisoryKey(`gatehouse:serialize\u0000${key}`);
      const transaction = units.get(handle);
      if (transaction) await transaction.lock(lockKey);
      else await handle.query({ ...SERIALIZE, values: [lockKey] });
    },
  });
}
