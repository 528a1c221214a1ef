/**
 * Concurrent starts: three booking server processes (the real entry point,
 * bundled) started at once on one empty database, a SQLite file or a fresh
 * PostgreSQL database. So that their rotations of the demo token meet, the
 * test holds the database briefly while they reach them (the write lock on
 * SQLite, the credentials table on PostgreSQL), then lets them go together.
 * One start seeds and the others find it seeded; the rotations run one
 * after the other, so exactly one demo token is live afterwards, the one
 * printed by the last start to rotate, and every earlier one was revoked
 * once, audited on channel `cli`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../../../test/childBundle.js';
import { freeLoopbackPorts } from '../../../test/freePorts.js';
import { type BookingApp, createBookingApp } from '../src/app.js';
import type { DatabaseConfig } from '../src/db/open.js';
import { ROTATION_LOCK } from '../src/demoToken.js';
import { demoTokenRows, expectLastRotationLive, rotationOrder } from './fixtures/demoRotations.js';
import { postgresAvailable, postgresTestDatabase } from './fixtures/postgres.js';
import { rawClient } from './fixtures/raw.js';
import { bookingEnv } from './fixtures/spawnBooking.js';

const here = dirname(fileURLToPath(import.meta.url));
const STARTS = 3;
/** The longest a start waits at the test's lock: below its statement timeout (5 s). */
const GATE_MS = 3_000;
const postgres = await postgresAvailable();
let dir = '';
let script = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'booking-concurrent-starts-'));
  script = bundleChild(join(here, '../src/main.ts'), join(dir, 'main.cjs'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What one start printed in its banner. */
interface Started {
  readonly url: URL;
  readonly token: string;
  readonly credentialId: string;
  readonly seeded: boolean;
  /** The demo tokens this start revoked. */
  readonly revoked: readonly string[];
}

/** A server process on its way up: its banner once printed, or its output when it exits first. */
interface Starting {
  readonly child: ChildProcess;
  readonly started: Promise<Started>;
  readonly exited: Promise<unknown>;
}

function bannerOf(out: string): Started {
  const revoked = /This start revoked the previous one \(([^)]*)\)/.exec(out)?.[1];
  return {
    url: new URL(/MCP URL\s+(\S+)/.exec(out)?.[1] ?? ''),
    token: /Demo token\s+(\S+)/.exec(out)?.[1] ?? '',
    credentialId: /; id (cred_\w+);/.exec(out)?.[1] ?? '',
    seeded: out.includes('(created and seeded with demo data)'),
    revoked: revoked ? revoked.split(', ') : [],
  };
}

function launch(file: string, env: Record<string, string>): Starting {
  const child = spawn(process.execPath, [script], {
    env: bookingEnv(file, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const started = new Promise<Started>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`a start exited (${code}) before its banner: ${out}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Press Ctrl+C')) resolve(bannerOf(out));
    });
  });
  return { child, started, exited };
}

/** Something the test holds on the database while the starts come up; `release` lets them go on. */
interface Gate {
  /** The environment of the `i`-th start. */
  env(i: number): Record<string, string>;
  release(): Promise<void>;
}

/** Whether something accepts connections on loopback `port`. */
const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * SQLite: the test's own connection on the new, empty file. The moment the
 * first start listens (it rotates next), the test takes the write lock, as
 * a backup or the CLI might; once every start listens (at most
 * {@link GATE_MS}, within their lock wait), it lets them go together.
 */
async function sqliteGate(file: string): Promise<Gate> {
  const ports = await freeLoopbackPorts(STARTS);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const some = async () => (await Promise.all(ports.map(listening))).some(Boolean);
  const all = async () => (await Promise.all(ports.map(listening))).every(Boolean);
  return {
    env: (i) => ({ PORT: String(ports[i]) }),
    async release() {
      try {
        await until(some, 1, 30_000);
        db.exec('BEGIN IMMEDIATE');
        await until(all, 5, GATE_MS);
        db.exec('COMMIT');
      } finally {
        db.close();
      }
    },
  };
}

/** The starts waiting to rotate: for the table the test locked, or (one at a time) for the rotation's advisory lock. */
async function rotationsWaiting(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
      WHERE NOT l.granted AND d.datname = current_database()
        AND ((l.locktype = 'relation' AND l.relation = 'gatehouse_credentials'::regclass)
          OR (l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1))`,
    [ROTATION_LOCK],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * PostgreSQL: once the first start has migrated the fresh database, the
 * test locks `gatehouse_credentials` (ACCESS EXCLUSIVE, as a schema change
 * would), so every start's rotation waits at its first read of the table;
 * once all of them wait (at most {@link GATE_MS} after the first, within
 * their statement timeout), it lets them go together.
 */
function postgresGate(url: string, pool: pg.Pool): Gate {
  const migrated = async () => {
    const { rows } = await pool.query("SELECT to_regclass('gatehouse_credentials') IS NOT NULL AS ok");
    return rows[0]?.ok === true;
  };
  return {
    env: () => ({ DATABASE_URL: url }),
    async release() {
      await until(migrated, 10, 30_000);
      const holder = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE gatehouse_credentials IN ACCESS EXCLUSIVE MODE');
        await until(async () => (await rotationsWaiting(pool)) > 0, 10, 30_000);
        await until(async () => (await rotationsWaiting(pool)) >= STARTS, 10, GATE_MS);
        await holder.query('COMMIT');
      } finally {
        holder.release();
      }
    },
  };
}

/** Waits until `ready()`, asking every `everyMs`, for at most `withinMs`. */
async function until(ready: () => Promise<boolean>, everyMs: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline && !(await ready())) await sleep(everyMs);
}

/** Starts `STARTS` processes at once, lets them pass `gate`, waits for every banner, runs `check`, then stops them. */
async function startAtOnce(
  file: string,
  gate: Gate,
  check: (starts: readonly Started[]) => Promise<void>,
): Promise<void> {
  const starting = Array.from({ length: STARTS }, (_, i) => launch(file, gate.env(i)));
  try {
    await gate.release();
    await check(await Promise.all(starting.map((s) => s.started)));
  } finally {
    for (const { child } of starting) child.kill('SIGTERM');
    await Promise.all(starting.map((s) => s.exited));
  }
}

/**
 * What the starts left in the database (read through `app`): one seeding,
 * rotations one after the other, one live demo token (the last rotation's,
 * served; the others 401), one `token.revoke` row (channel `cli`) for each
 * earlier one.
 */
async function expectOneLiveDemoToken(starts: readonly Started[], app: BookingApp): Promise<void> {
  expect(starts.filter((s) => s.seeded)).toHaveLength(1);
  const count = async (table: 'workspaces' | 'bookings') => {
    const row = await app.database.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  expect(await count('workspaces')).toBe(2);
  expect(await count('bookings')).toBe(4);

  const rows = await demoTokenRows(app);
  expect([...rows.minted].sort()).toEqual(starts.map((s) => s.credentialId).sort());
  const order = rotationOrder(starts);
  expectLastRotationLive(rows, order);
  const last = order[order.length - 1];

  for (const s of starts) {
    expect((await rawClient(s.url, s.token).listTools()).status).toBe(s === last ? 200 : 401);
    expect((await rawClient(s.url, last?.token).listTools()).status).toBe(200);
  }
}

/** A booking app on the database the starts used, to read it; closed by `await using`. */
async function reading(config: DatabaseConfig): Promise<BookingApp & AsyncDisposable> {
  const app = await createBookingApp({ ...config, seed: false, logger: pino({ level: 'silent' }) });
  return Object.assign(app, { [Symbol.asyncDispose]: () => app.close() });
}

describe('three booking processes started at once on one empty database', () => {
  it('on a SQLite file: one seeds, and one demo token is live, the last rotation’s', async () => {
    const file = join(dir, 'booking.db');
    await startAtOnce(file, await sqliteGate(file), async (starts) => {
      await using app = await reading({ file });
      await expectOneLiveDemoToken(starts, app);
    });
  }, 60_000);

  it.skipIf(!postgres)(
    'on PostgreSQL: one seeds, and one demo token is live, the last rotation’s',
    async () => {
      const database = await postgresTestDatabase();
      const pool = new pg.Pool({ connectionString: database.url, max: 3 });
      pool.on('error', () => undefined);
      try {
        await startAtOnce(join(dir, 'unused.db'), postgresGate(database.url, pool), async (starts) => {
          await using app = await reading({ databaseUrl: database.url });
          await expectOneLiveDemoToken(starts, app);
        });
      } finally {
        await pool.end();
        await database.drop();
      }
    },
    60_000,
  );
});
