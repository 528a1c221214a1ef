import { ConfigurationError } from '@gatehousejs/core';
import pg from 'pg';
import { translatePostgresError } from './faults.js';

/** Options of {@link createPostgresPool}. */
export interface PostgresPoolOptions {
  /** `postgres://user:password@host:port/database`; default the `PG*` environment variables, as `pg` reads them. */
  readonly connectionString?: string;
  /** Most connections the pool opens; default 10. */
  readonly max?: number;
  /**
   * `statement_timeout` of every connection, in ms (default 5,000): a slow
   * statement fails instead of hanging a call. 0 turns it off.
   */
  readonly statementTimeoutMs?: number;
  /** How long acquiring a connection may take before it fails, in ms; default 2,000. */
  readonly connectionTimeoutMs?: number;
  /** How long an idle connection stays open, in ms; default 10,000. */
  readonly idleTimeoutMs?: number;
  /** TLS settings, passed to `pg` as they are. */
  readonly ssl?: pg.PoolConfig['ssl'];
  /** `application_name` of the connections (shown in `pg_stat_activity`); default `gatehouse`. */
  readonly applicationName?: string;
  /**
   * Whether the stores' per-call statements are prepared on each connection
   * (parsed and planned once); default true. Turn it off behind a pooler in
   * transaction mode that cannot keep prepared statements (PgBouncer before
   * 1.21, or without `max_prepared_statements`).
   */
  readonly preparedStatements?: boolean;
}

/** Options of {@link guardPostgresPool}. */
export interface GuardPostgresPoolOptions {
  /** As {@link PostgresPoolOptions.preparedStatements}; default true. */
  readonly preparedStatements?: boolean;
}

const INT8_OID = 20;

/** Type parsers of the pool: BIGINT (int8) as a JS number, everything else as `pg` parses it. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
} as pg.CustomTypesConfig;

function whole(name: string, value: number | undefined, fallback: number, min: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < min) {
    throw new ConfigurationError(`createPostgresPool: ${name} must be an integer of at least ${min}.`);
  }
  return chosen;
}

const ignore = (): undefined => undefined;

function preparing(who: string, value: boolean | undefined): boolean {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new ConfigurationError(`${who}: preparedStatements must be true or false.`);
  }
  return value ?? true;
}

type Method = (...args: unknown[]) => unknown;

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * `method` of `self` with its failures translated ({@link translatePostgresError}),
 * in both of `pg`'s forms: a trailing callback gets the translated error, a
 * returned promise rejects with it. A submittable (a cursor) is returned as it is.
 */
function translating(method: Method, self: object, prepare: boolean): Method {
  return function translated(...args: unknown[]): unknown {
    if (!prepare && args.length > 0) args[0] = unnamed(args[0]);
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, ...rest: unknown[]) =>
        (callback as Method)(error ? translatePostgresError(error) : error, ...rest);
      return method.apply(self, args);
    }
    const result = method.apply(self, args);
    return isPromise(result)
      ? result.catch((error: unknown) => {
          throw translatePostgresError(error);
        })
      : result;
  };
}

/** A query config without its statement name (the text runs unnamed); anything else as it is. */
function unnamed(query: unknown): unknown {
  if (typeof query !== 'object' || query === null || !('name' in query)) return query;
  const { name: _name, ...rest } = query as pg.QueryConfig;
  return rest;
}

const guarded = new WeakSet<pg.Pool>();

/** The clients each guarded pool opened, so a store can tell a unit of work on its own database from another's. */
const clientsOf = new WeakMap<pg.Pool, WeakSet<object>>();

/** Whether `client` is a connection `pool` opened after it was guarded: the same database (cluster) as the pool's. */
export function isClientOf(pool: pg.Pool, client: unknown): boolean {
  return typeof client === 'object' && client !== null && clientsOf.get(pool)?.has(client) === true;
}

/**
 * Makes every client `pool` hands out safe to use from any code, a query
 * builder's dialect included: each client carries an `error` listener for
 * as long as it lives, idle or checked out (a connection the server ends
 * while it is checked out, `57P01` at a database stop, would otherwise be an
 * unhandled `error` event that ends the process); a broken client is
 * destroyed when released, never reused; and a fault of the database
 * (unreachable, shutting down, a statement or checkout timeout, a conflict)
 * rejects as the `ToolError` `store_unavailable` (a `TransactionConflict`
 * for a serialization failure or deadlock) with the driver's error as
 * `cause`, so every caller answers it as an outage, never as an internal
 * error. Other errors (constraints, syntax) pass unchanged. Idempotent;
 * {@link createPostgresPool} and the stores call it. Guard a pool of your
 * own before its first query: clients it opened earlier stay unguarded.
 *
 * @example
 * const pool = guardPostgresPool(new pg.Pool({ connectionString }));
 */
export function guardPostgresPool(pool: pg.Pool, options: GuardPostgresPoolOptions = {}): pg.Pool {
  if (guarded.has(pool)) return pool;
  const prepare = preparing('guardPostgresPool', options.preparedStatements);
  guarded.add(pool);
  const clients = new WeakSet<object>();
  clientsOf.set(pool, clients);
  // An idle client that loses its server emits here; without a listener Node would crash the process.
  pool.on('error', ignore);
  pool.on('connect', (client: pg.PoolClient) => {
    clients.add(client);
    client.on('error', ignore);
    client.query = translating(client.query as Method, client, prepare) as typeof client.query;
  });
  pool.query = translating(pool.query as Method, pool, prepare) as typeof pool.query;
  pool.connect = translating(pool.connect as Method, pool, prepare) as typeof pool.connect;
  return pool;
}

/**
 * A `pg` pool for the Gatehouse stores: BIGINT columns read as JS numbers (set
 * on this pool only, never on the global `pg.types`), and every connection
 * runs with `statement_timeout`, so a stuck statement fails rather than
 * hangs. Refuses bad options (ConfigurationError) before connecting; the
 * connection string never appears in an error. Guarded
 * ({@link guardPostgresPool}): no client can end the process with an
 * `error` event, and database faults reject as `store_unavailable`.
 *
 * @example
 * const pool = createPostgresPool({ connectionString: process.env.DATABASE_URL });
 */
export function createPostgresPool(options: PostgresPoolOptions = {}): pg.Pool {
  if (options.connectionString !== undefined && typeof options.connectionString !== 'string') {
    throw new ConfigurationError('createPostgresPool: connectionString must be a string.');
  }
  if (options.connectionString === '') {
    throw new ConfigurationError('createPostgresPool: connectionString is empty.');
  }
  const statementTimeoutMs = whole('statementTimeoutMs', options.statementTimeoutMs, 5_000, 0);
  const preparedStatements = preparing('createPostgresPool', options.preparedStatements);
  const pool = new pg.Pool({
    ...(options.connectionString === undefined ? {} : { connectionString: options.connectionString }),
    ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
    max: whole('max', options.max, 10, 1),
    connectionTimeoutMillis: whole('connectionTimeoutMs', options.connectionTimeoutMs, 2_000, 1),
    idleTimeoutMillis: whole('idleTimeoutMs', options.idleTimeoutMs, 10_000, 0),
    application_name: options.applicationName ?? 'gatehouse',
    types,
    ...(statementTimeoutMs === 0 ? {} : { statement_timeout: statementTimeoutMs }),
  });
  return guardPostgresPool(pool, { preparedStatements });
}
