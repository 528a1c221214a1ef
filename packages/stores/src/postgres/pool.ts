import { ConfigurationError } from '@gatehousejs/core';
import pg from 'pg';

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

/**
 * A `pg` pool for the Gatehouse stores: BIGINT columns read as JS numbers (set
 * on this pool only, never on the global `pg.types`), and every connection
 * runs with `statement_timeout`, so a stuck statement fails rather than
 * hangs. Refuses bad options (ConfigurationError) before connecting; the
 * connection string never appears in an error. An idle connection that
 * breaks is dropped quietly; the next query reconnects or fails.
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
  // An idle client that loses its server emits here; without a listener Node would crash the process.
  pool.on('error', () => undefined);
  return pool;
}
