/**
 * One WAL flush per acknowledged write on PostgreSQL: the booking app on a
 * throwaway cluster of its own (fsync and synchronous_commit on, as in
 * production), a batch of `create_booking` calls one after the other, and
 * `pg_stat_wal.wal_sync` read before and after. The rate take and the
 * replay claim commit with `synchronous_commit = off` for their own
 * transactions; the unit of work's commit flushes the WAL past them, so a
 * create costs one sync, plus the WAL writer's background flushes.
 */
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../test/throwawayPostgres.js';
import { type BookingApp, createBookingApp } from '../src/app.js';
import { berlin } from './fixtures/testApp.js';

const CREATES = 100;
let cluster: ThrowawayPostgres | undefined;

beforeAll(async () => {
  cluster = await startThrowawayPostgres();
  if (!cluster) return;
  // the throwaway cluster runs without fsync; this measurement needs the production settings
  await sql(cluster.url, [
    'ALTER SYSTEM SET fsync = on',
    'ALTER SYSTEM SET synchronous_commit = on',
    'SELECT pg_reload_conf()',
  ]);
}, 120_000);

afterAll(async () => {
  await cluster?.dispose();
});

async function sql(url: string, statements: readonly string[]): Promise<pg.QueryResult[]> {
  const client = new pg.Client({ connectionString: url, application_name: 'wal-sync-probe' });
  await client.connect();
  try {
    const results: pg.QueryResult[] = [];
    for (const statement of statements) results.push(await client.query(statement));
    return results;
  } finally {
    await client.end();
  }
}

/**
 * `wal_sync` of the whole cluster, once every backend of the app's pool has
 * flushed its pending statistics (they are flushed when a backend is idle,
 * at most once a second otherwise) and the WAL writer has reported its own.
 */
async function walSyncs(app: BookingApp, url: string): Promise<number> {
  const pool = (app.database.stores as unknown as { pool: pg.Pool }).pool;
  const clients = await Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()));
  try {
    for (const client of clients) await client.query('SELECT pg_stat_force_next_flush()');
  } finally {
    for (const client of clients) client.release();
  }
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const [, shown] = await sql(url, ['SELECT pg_stat_force_next_flush()', 'SELECT wal_sync FROM pg_stat_wal']);
  return Number(shown?.rows[0]?.wal_sync);
}

describe('the booking app on a PostgreSQL cluster of its own', () => {
  it(`flushes the WAL about once per create over ${CREATES} creates`, { timeout: 120_000 }, async (ctx) => {
    if (!cluster) return ctx.skip('no throwaway PostgreSQL cluster can run here');
    const [fsync] = await sql(cluster.url, ['SHOW fsync']);
    expect(fsync?.rows[0]).toEqual({ fsync: 'on' });
    const app = await createBookingApp({
      databaseUrl: cluster.url,
      logger: pino({ level: 'silent' }),
      rateLimits: { write: { capacity: 10_000, refillPerSecond: 1_000 } },
    });
    try {
      const decision = await app.credentials.authenticate({
        token: (
          await app.credentials.mint({
            tenantIds: ['ws_acme'],
            creatorId: 'p_olivia',
            rights: [...((await app.people.standing('ws_acme', 'p_olivia'))?.rights ?? [])],
            clientLabel: 'wal sync test',
            channel: 'cli',
            toolset: null,
          })
        ).token,
      });
      if (!decision.ok) throw new Error('the minted token was refused');
      const create = async (n: number) => {
        const result = await app.mcp.callTool(decision.connection, 'create_booking', {
          customer_id: 'cu_alan',
          starts_at: berlin(20 + Math.floor(n / 8), `${String(8 + (n % 8)).padStart(2, '0')}:00`),
          duration_minutes: 30,
          price: { minor_units: 4500, currency: 'EUR' },
        });
        expect(result.structuredContent, JSON.stringify(result.structuredContent)).toMatchObject({
          status: 'ok',
        });
      };
      for (let n = 0; n < 3; n++) await create(n); // warm: claims paired with the unit of work
      const before = await walSyncs(app, cluster.url);
      for (let n = 3; n < CREATES + 3; n++) await create(n);
      const after = await walSyncs(app, cluster.url);
      const perCreate = (after - before) / CREATES;
      console.info(
        `pg_stat_wal.wal_sync per create: ${perCreate.toFixed(2)} (${after - before} over ${CREATES})`,
      );
      expect(perCreate).toBeGreaterThanOrEqual(1); // the unit's commit always flushes
      expect(perCreate).toBeLessThanOrEqual(1.3);
    } finally {
      await app.close();
    }
  });
});
