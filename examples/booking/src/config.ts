import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BucketLimit, Effect } from '@gatehousejs/core';

/** The default database file: `examples/booking/data/booking.db` (gitignored), beside `src` and `dist`. */
export const defaultDatabase = (): string => fileURLToPath(new URL('../data/booking.db', import.meta.url));

/** The workspace and person the demo token of `npm start` is minted for. */
export const DEMO = Object.freeze({ workspaceId: 'ws_acme', personId: 'p_olivia' });

/** A configuration mistake, reported as one line with exit code 2, never as a stack trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The database file: `BOOKING_DB` when set (relative to the directory the
 * command was started from), else {@link defaultDatabase}.
 */
export function databaseFile(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.BOOKING_DB?.trim();
  if (!configured) return defaultDatabase();
  return isAbsolute(configured) ? configured : resolve(env.INIT_CWD ?? process.cwd(), configured);
}

/** The database to run on: PostgreSQL when `DATABASE_URL` is set, else the SQLite file of {@link databaseFile}. */
export type DatabaseChoice = { readonly file: string } | { readonly databaseUrl: string };

/**
 * The database from the environment: `DATABASE_URL` (a `postgres://` or
 * `postgresql://` URL) selects PostgreSQL; unset or empty, the SQLite file
 * of {@link databaseFile}. Any other URL is a {@link UsageError} that never
 * repeats the URL (it may hold a password).
 */
export function databaseConfig(env: NodeJS.ProcessEnv = process.env): DatabaseChoice {
  const url = env.DATABASE_URL?.trim();
  if (!url) return { file: databaseFile(env) };
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new UsageError('DATABASE_URL must be a postgres:// or postgresql:// URL; unset it to use SQLite.');
  }
  return { databaseUrl: url };
}

/**
 * What to show for a PostgreSQL URL: host, port and database name, never
 * the user's password. An unparsable URL shows as `postgres`.
 */
export function redactedDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const name = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres';
    return `postgres://${parsed.host}/${name}`;
  } catch {
    return 'postgres';
  }
}

/** The HTTP port: `PORT` (0 picks a free one), default 3333. */
export function portOf(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PORT?.trim();
  if (!raw) return 3333;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`PORT must be a whole number from 0 to 65535, not ${JSON.stringify(raw)}.`);
  }
  return port;
}

const EFFECT_NAMES: readonly Effect[] = ['read', 'write', 'notify', 'wake', 'alert', 'delete'];

/**
 * Overrides of the MCP rate buckets from `BOOKING_RATE_LIMITS`: JSON such as
 * `{"write":{"capacity":100,"refillPerSecond":5}}`. Unset, the defaults hold.
 * An unknown effect class, a capacity below 1 or a refill not above 0 is a
 * {@link UsageError}.
 */
export function rateLimitsOf(env: NodeJS.ProcessEnv = process.env): Partial<Record<Effect, BucketLimit>> {
  const raw = env.BOOKING_RATE_LIMITS?.trim();
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UsageError(
      'BOOKING_RATE_LIMITS must be JSON: {"write":{"capacity":30,"refillPerSecond":0.5}}.',
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('BOOKING_RATE_LIMITS must be a JSON object keyed by effect class.');
  }
  const limits: Partial<Record<Effect, BucketLimit>> = {};
  for (const [effect, limit] of Object.entries(parsed)) {
    if (!EFFECT_NAMES.includes(effect as Effect)) {
      throw new UsageError(
        `BOOKING_RATE_LIMITS names ${JSON.stringify(effect)}; known: ${EFFECT_NAMES.join(', ')}.`,
      );
    }
    const { capacity, refillPerSecond } = (limit ?? {}) as Partial<BucketLimit>;
    if (
      !(
        typeof capacity === 'number' &&
        capacity >= 1 &&
        typeof refillPerSecond === 'number' &&
        refillPerSecond > 0
      )
    ) {
      throw new UsageError(`BOOKING_RATE_LIMITS.${effect} needs capacity ≥ 1 and refillPerSecond > 0.`);
    }
    limits[effect as Effect] = { capacity, refillPerSecond };
  }
  return limits;
}

/**
 * How long a replica's claim on a write or a confirmation lasts without a
 * renewal (`BOOKING_REPLAY_LEASE_MS`, default the server's 10 s). The
 * holder renews it every fifth of the lease while it runs, so a slow write
 * keeps it and a crashed replica's lapses within the lease; the server
 * refuses to start with a lease that does not exceed a renewal interval plus
 * the database's longest wait (5 s on either engine), i.e. below 6,251 ms.
 */
export function replayLeaseOf(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.BOOKING_REPLAY_LEASE_MS?.trim();
  if (!raw) return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 100 || ms > 3_600_000) {
    throw new UsageError(
      `BOOKING_REPLAY_LEASE_MS must be a whole number of milliseconds from 100 to 3600000, not ${JSON.stringify(raw)}.`,
    );
  }
  return ms;
}
