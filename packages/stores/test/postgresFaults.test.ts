// PostgreSQL going away under a checked-out client, a statement timing out
// behind a held row lock, a deadlock, and a connection lost during COMMIT:
// each is an answer the caller can act on (`store_unavailable`, a
// `TransactionConflict`, `outcome_unknown`), never a crash of the process
// and never a raw driver error. Faults are real: backends terminated with
// `pg_terminate_backend` (57P01, as at a database stop), a real lock, a proxy
// that drops the connection once the COMMIT has left.

import { createServer, type Server, Socket } from 'node:net';
import { ToolError, TransactionConflict } from '@gatehousejs/core';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresPool,
  guardPostgresPool,
  postgresFaultOf,
  postgresUnitOfWork,
} from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';

const available = await postgresAvailable();

/** Terminates every backend of `pool`'s database but the caller's own (57P01 on each). */
async function terminateOthers(admin: pg.Pool, database: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity
     WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [database],
  );
  return Number(rows[0]?.n ?? 0);
}

const databaseOf = (url: string) => new URL(url).pathname.slice(1);

/** Waits until `pool` has no more than `count` clients open. */
async function settles(pool: pg.Pool, count: number): Promise<void> {
  for (let i = 0; i < 50 && pool.totalCount > count; i++) await new Promise((r) => setTimeout(r, 20));
}

describe.skipIf(!available)('postgresFaultOf', () => {
  it('tells outages and conflicts from the host’s own errors', () => {
    expect(postgresFaultOf({ code: '57P01' })).toBe('unavailable');
    expect(postgresFaultOf({ code: '57014' })).toBe('unavailable');
    expect(postgresFaultOf({ code: '08006' })).toBe('unavailable');
    expect(postgresFaultOf({ code: 'ECONNREFUSED' })).toBe('unavailable');
    expect(postgresFaultOf(new Error('timeout exceeded when trying to connect'))).toBe('unavailable');
    expect(postgresFaultOf(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(postgresFaultOf(new AggregateError([{ code: 'ECONNREFUSED' }], 'x'))).toBe('unavailable');
    expect(postgresFaultOf({ code: '40001' })).toBe('conflict');
    expect(postgresFaultOf({ code: '40P01' })).toBe('conflict');
    expect(postgresFaultOf({ code: '23505' })).toBeUndefined();
    expect(postgresFaultOf({ code: '42601' })).toBeUndefined();
    expect(postgresFaultOf(new Error('relation "x" does not exist'))).toBeUndefined();
  });
});

describe.skipIf(!available)('guardPostgresPool', () => {
  let db: TestDatabase;
  let admin: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = createPostgresPool({ connectionString: db.url, max: 2, applicationName: 'fault-admin' });
    await db.pool.query('CREATE TABLE slots (id INT PRIMARY KEY, taken_by TEXT)');
    await db.pool.query('INSERT INTO slots VALUES (1, NULL), (2, NULL)');
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  it('keeps the process up when the server ends a checked-out client, and destroys that client on release', async () => {
    const pool = createPostgresPool({ connectionString: db.url, max: 3 });
    try {
      const client = await pool.connect();
      expect(client.listenerCount('error')).toBeGreaterThan(0);
      await client.query('SELECT 1');
      expect(await terminateOthers(admin, databaseOf(db.url))).toBeGreaterThan(0);
      // the client emits `error` (57P01) with no query running; without a listener this ends the process
      await new Promise((resolve) => setTimeout(resolve, 100));
      const failed = await client.query('SELECT 1').catch((error: unknown) => error);
      expect(ToolError.is(failed) && failed.code).toBe('store_unavailable');
      expect(JSON.stringify(failed)).not.toContain('terminating');
      client.release();
      await settles(pool, 0);
      expect(pool.totalCount).toBe(0);
      expect((await pool.query<{ n: number }>('SELECT 1 AS n')).rows[0]?.n).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('guards a query builder’s checkouts: a Kysely on the pool meets store_unavailable, not a crash', async () => {
    const pool = guardPostgresPool(new pg.Pool({ connectionString: db.url, max: 2 }));
    const kysely = new Kysely<{ slots: { id: number; taken_by: string | null } }>({
      dialect: new PostgresDialect({ pool }),
    });
    try {
      const lock = await kysely.connection().execute(async (conn) => {
        await conn.selectFrom('slots').select('id').execute();
        await terminateOthers(admin, databaseOf(db.url));
        await new Promise((resolve) => setTimeout(resolve, 100));
        return conn
          .selectFrom('slots')
          .select('id')
          .execute()
          .catch((error: unknown) => error);
      });
      expect(ToolError.is(lock) && lock.code).toBe('store_unavailable');
      expect(await kysely.selectFrom('slots').select('id').execute()).toHaveLength(2);
    } finally {
      await kysely.destroy();
    }
  });

  it('answers a database that refuses connections as store_unavailable from query and connect', async () => {
    const closed = await unusedPort();
    const pool = createPostgresPool({ connectionString: `postgres://postgres@127.0.0.1:${closed}/x` });
    try {
      const viaQuery = await pool.query('SELECT 1').catch((error: unknown) => error);
      const viaConnect = await pool.connect().catch((error: unknown) => error);
      for (const failed of [viaQuery, viaConnect]) {
        expect(ToolError.is(failed) && failed.code).toBe('store_unavailable');
        expect((failed as Error).cause).toBeDefined();
      }
    } finally {
      await pool.end();
    }
  });

  it('passes the host’s own errors through unchanged', async () => {
    const failed = await db.pool.query('INSERT INTO slots VALUES (1, NULL)').catch((error: unknown) => error);
    expect(ToolError.is(failed)).toBe(false);
    expect((failed as { code?: string }).code).toBe('23505');
  });
});

describe.skipIf(!available)('postgresUnitOfWork under faults', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query('CREATE TABLE slots (id INT PRIMARY KEY, taken_by TEXT)');
  });
  afterAll(async () => {
    await db?.drop();
  });

  const reset = async () => {
    await db.pool.query('DELETE FROM slots');
    await db.pool.query('INSERT INTO slots VALUES (1, NULL), (2, NULL)');
  };
  const takenBy = async (id: number) =>
    (await db.pool.query<{ taken_by: string | null }>('SELECT taken_by FROM slots WHERE id = $1', [id]))
      .rows[0]?.taken_by;

  it('answers a statement timeout behind a held row lock as store_unavailable, and writes nothing', async () => {
    await reset();
    const pool = createPostgresPool({ connectionString: db.url, max: 2, statementTimeoutMs: 300 });
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM slots WHERE id = 1 FOR UPDATE');
      const unit = postgresUnitOfWork(pool);
      const failed = await unit
        .run(async (client) => {
          await client.query("UPDATE slots SET taken_by = 'unit' WHERE id = 2");
          await client.query("UPDATE slots SET taken_by = 'unit' WHERE id = 1");
        })
        .catch((error: unknown) => error);
      expect(ToolError.is(failed) && failed.code).toBe('store_unavailable');
      expect((failed as Error).message).toMatch(/Nothing ran\.$/);
      expect(((failed as Error).cause as { code?: string }).code).toBe('57014');
      await holder.query('ROLLBACK');
      expect(await takenBy(2)).toBeNull();
    } finally {
      holder.release();
      await pool.end();
    }
  });

  it('throws a TransactionConflict for a deadlock, and keeps nothing of the unit that lost', async () => {
    await reset();
    const unit = postgresUnitOfWork(db.pool);
    let bothLocked!: () => void;
    const locked = new Promise<void>((resolve) => {
      let count = 0;
      bothLocked = () => {
        if (++count === 2) resolve();
      };
    });
    const crosswise = (first: number, second: number, name: string) =>
      unit
        .run(async (client) => {
          await client.query('UPDATE slots SET taken_by = $1 WHERE id = $2', [name, first]);
          bothLocked();
          await locked;
          await client.query('UPDATE slots SET taken_by = $1 WHERE id = $2', [name, second]);
          return name;
        })
        .then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
    const results = await Promise.all([crosswise(1, 2, 'a'), crosswise(2, 1, 'b')]);
    const lost = results.filter((r) => 'error' in r);
    const won = results.filter((r) => 'value' in r) as { value: string }[];
    expect(lost).toHaveLength(1);
    expect(TransactionConflict.is((lost[0] as { error: unknown }).error)).toBe(true);
    expect(won).toHaveLength(1);
    expect([await takenBy(1), await takenBy(2)]).toEqual([won[0]!.value, won[0]!.value]);
  });

  it('answers outcome_unknown when the connection is lost after the COMMIT left, and the commit stands', async () => {
    await reset();
    const proxy = await commitCuttingProxy(new URL(db.url));
    const pool = createPostgresPool({ connectionString: proxy.url, max: 1 });
    try {
      const failed = await postgresUnitOfWork(pool)
        .run(async (client) => {
          await client.query("UPDATE slots SET taken_by = 'lost' WHERE id = 1");
          proxy.cutAfterCommit();
        })
        .catch((error: unknown) => error);
      expect(ToolError.is(failed) && failed.code).toBe('outcome_unknown');
      expect(await takenBy(1)).toBe('lost');
      // the pool replaces the broken client
      proxy.heal();
      expect((await pool.query<{ n: number }>('SELECT 1 AS n')).rows[0]?.n).toBe(1);
    } finally {
      await pool.end();
      await proxy.close();
    }
  });

  it('answers store_unavailable when the connection was lost before the COMMIT could be sent', async () => {
    await reset();
    const admin = createPostgresPool({ connectionString: db.url, max: 1 });
    const pool = createPostgresPool({ connectionString: db.url, max: 1, applicationName: 'doomed' });
    try {
      const failed = await postgresUnitOfWork(pool)
        .run(async (client) => {
          await client.query("UPDATE slots SET taken_by = 'gone' WHERE id = 1");
          await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'doomed'",
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
        })
        .catch((error: unknown) => error);
      expect(ToolError.is(failed) && failed.code).toBe('store_unavailable');
      expect((failed as Error).message).toMatch(/before COMMIT\. Nothing ran\./);
      expect(await takenBy(1)).toBeNull();
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 1;
}

/**
 * A proxy to PostgreSQL that, once armed, forwards the next `COMMIT` to the
 * server and then drops the client's connection before any answer returns:
 * the commit lands, the client never hears of it.
 */
async function commitCuttingProxy(target: URL) {
  let armed = false;
  let cutting = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.once('close', () => sockets.delete(socket));
    }
    upstream.connect(Number(target.port || 5432), target.hostname);
    let dropping = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      if (armed && cutting && chunk.includes('COMMIT')) {
        dropping = true;
        // let the COMMIT reach the server, then end the client's side before its answer
        setTimeout(() => client.destroy(), 50);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!dropping) client.write(chunk);
    });
    client.once('close', () => upstream.end());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: url.toString(),
    cutAfterCommit() {
      armed = true;
    },
    heal() {
      cutting = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
