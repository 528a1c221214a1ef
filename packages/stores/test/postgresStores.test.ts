// createPostgresPool, migrateGatehouseSchemaPostgres and createPostgresStores:
// options refused up front, versioned migrations safe under concurrent
// starts, purges in batches, statement timeouts, the readiness probe.
import { ConfigurationError } from '@gatehousejs/core';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../src/postgres/schema.js';
import {
  createPostgresPool,
  createPostgresStores,
  migrateGatehouseSchemaPostgres,
  POSTGRES_SCHEMA_VERSION,
  PostgresPendingActionStore,
  PostgresRateBucketStore,
} from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';
import { pendingAction } from './fixtures/records.js';

const available = await postgresAvailable();

describe('createPostgresPool', () => {
  it('refuses bad options with a ConfigurationError, before connecting', () => {
    const bad = [
      { max: 0 },
      { max: 1.5 },
      { statementTimeoutMs: -1 },
      { connectionTimeoutMs: 0 },
      { idleTimeoutMs: Number.NaN },
      { connectionString: '' },
      { connectionString: 42 as unknown as string },
    ];
    for (const options of bad) expect(() => createPostgresPool(options)).toThrow(ConfigurationError);
  });
});

describe.skipIf(!available)('the PostgreSQL stores on a live database', () => {
  const databases: TestDatabase[] = [];
  const fresh = async () => {
    const database = await createTestDatabase();
    databases.push(database);
    return database;
  };
  afterEach(async () => {
    await Promise.all(databases.splice(0).map((d) => d.drop()));
  });

  it('reads BIGINT as a number on its own pools only, and runs every connection with the statement timeout', async () => {
    const { url } = await fresh();
    const pool = createPostgresPool({ connectionString: url, statementTimeoutMs: 1_234 });
    try {
      const { rows } = await pool.query('SELECT 9007199254740991::bigint AS n, current_setting($1) AS t', [
        'statement_timeout',
      ]);
      expect(rows).toEqual([{ n: 9007199254740991, t: '1234ms' }]);
      const plain = new pg.Client({ connectionString: url });
      await plain.connect();
      const global = await plain.query('SELECT 1::bigint AS n');
      await plain.end();
      expect(global.rows).toEqual([{ n: '1' }]);
    } finally {
      await pool.end();
    }
  });

  it('turns a statement slower than the timeout into a rejection, not a hang', async () => {
    const { url } = await fresh();
    const pool = createPostgresPool({ connectionString: url, statementTimeoutMs: 200 });
    try {
      const stores = await createPostgresStores(pool);
      const started = Date.now();
      // the pool answers the timeout (57014) as an outage, keeping the driver's error as its cause
      const slow = await pool.query('SELECT pg_sleep(5)').catch((error: unknown) => error);
      expect(slow).toMatchObject({ code: 'store_unavailable', cause: { code: '57014' } });
      expect(Date.now() - started).toBeLessThan(3_000);
      // a store call behind a row lock held longer than the timeout rejects too
      const holder = await pool.connect();
      await stores.switches.set('global', false);
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM gatehouse_switches FOR UPDATE');
      const locked = await stores.switches.set('global', true).catch((error: unknown) => error);
      expect(locked).toMatchObject({ code: 'store_unavailable', cause: { message: /statement timeout/ } });
      await holder.query('ROLLBACK');
      holder.release();
      expect(await stores.switches.get('global')).toBe(false);
    } finally {
      await pool.end();
    }
  });

  it('migrates a fresh database once; a second run is a no-op', async () => {
    const { pool } = await fresh();
    expect(await migrateGatehouseSchemaPostgres(pool, 1)).toEqual({
      from: 0,
      to: POSTGRES_SCHEMA_VERSION,
      applied: [1, 2, 3, 4, 5],
    });
    expect(await migrateGatehouseSchemaPostgres(pool, 2)).toEqual({
      from: POSTGRES_SCHEMA_VERSION,
      to: POSTGRES_SCHEMA_VERSION,
      applied: [],
    });
    const { rows } = await pool.query(
      'SELECT version, applied_at FROM gatehouse_migrations ORDER BY version',
    );
    expect(rows).toEqual([1, 2, 3, 4, 5].map((version) => ({ version, applied_at: 1 })));
  });

  it('lets several processes start at once on a fresh database: every start succeeds, one migrates', async () => {
    const { url } = await fresh();
    const pools = Array.from({ length: 4 }, () => createPostgresPool({ connectionString: url, max: 2 }));
    try {
      const started = await Promise.all(pools.map((pool) => createPostgresStores(pool)));
      expect(started).toHaveLength(4);
      const { rows } = await pools[0]!.query('SELECT version FROM gatehouse_migrations ORDER BY version');
      expect(rows).toEqual([1, 2, 3, 4, 5].map((version) => ({ version })));
      await started[1]!.switches.set('global', true);
      expect(await started[3]!.switches.get('global')).toBe(true);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('refuses a database migrated by a newer package, and changes nothing', async () => {
    const { pool } = await fresh();
    await migrateGatehouseSchemaPostgres(pool);
    await pool.query("INSERT INTO gatehouse_migrations VALUES (99, 'from the future', 0)");
    await expect(createPostgresStores(pool)).rejects.toThrow(ConfigurationError);
    const { rows } = await pool.query('SELECT max(version) AS v FROM gatehouse_migrations');
    expect(rows).toEqual([{ v: 99 }]);
  });

  it('upgrades a version 1 database in place: a pending action from before reads back as a model action', async () => {
    const { pool } = await fresh();
    await pool.query(`CREATE TABLE gatehouse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL);
      ${POSTGRES_MIGRATIONS[0]?.sql ?? ''}
      INSERT INTO gatehouse_migrations VALUES (1, 'guard stores', 0);
      INSERT INTO gatehouse_pending_actions VALUES ('pa1', 'h-pa1', 'c1', 't1', 'notify_customer',
        '{"booking_id":"b1"}', 'ad', 'ch', 's', 0, 60000, 'pending');`);
    expect(await migrateGatehouseSchemaPostgres(pool, 7)).toEqual({ from: 1, to: 5, applied: [2, 3, 4, 5] });
    const store = new PostgresPendingActionStore(pool);
    const before = pendingAction('pa1', { arguments: { booking_id: 'b1' } });
    expect(await store.findById('pa1')).toStrictEqual(before);
    expect(await store.findByTokenHash('h-pa1')).toStrictEqual(before);
    const { rows } = await pool.query(
      'SELECT approval, creator_id, result, decided_by, decided_at FROM gatehouse_pending_actions',
    );
    expect(rows).toEqual([
      { approval: 'model', creator_id: null, result: null, decided_by: null, decided_at: null },
    ]);
    expect(await store.listAwaitingApproval('t1', 0, 10)).toEqual([]);
    // The new columns take a person action beside the old row, and refuse an unknown approval mode.
    await store.insert(pendingAction('pa2', { approval: 'person', creatorId: 'p1' }));
    expect((await store.listAwaitingApproval('t1', 0, 10)).map((a) => a.id)).toEqual(['pa2']);
    await expect(
      pool.query("UPDATE gatehouse_pending_actions SET approval = 'robot' WHERE id = 'pa1'"),
    ).rejects.toThrow(/check constraint/);
  });

  it('upgrades a version 2 database in place: a claim from before has no lease, so it is taken over at once', async () => {
    const { pool } = await fresh();
    await pool.query(`CREATE TABLE gatehouse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL);
      ${POSTGRES_MIGRATIONS[0]?.sql ?? ''}
      ${POSTGRES_MIGRATIONS[1]?.sql ?? ''}
      INSERT INTO gatehouse_migrations VALUES (1, 'guard stores', 0), (2, 'approval by a person', 0);
      INSERT INTO gatehouse_pending_actions (id, token_hash, connection_id, tenant_id, tool, arguments,
        arguments_digest, content_hash, summary, created_at, expires_at, status, approval, creator_id)
      VALUES ('pa1', 'h-pa1', 'c1', 't1', 'notify_customer', '{}', 'ad', 'ch', 's', 0, 60000, 'claimed',
        'person', 'p1');`);
    expect(await migrateGatehouseSchemaPostgres(pool, 7)).toEqual({ from: 2, to: 5, applied: [3, 4, 5] });
    const store = new PostgresPendingActionStore(pool);
    const before = pendingAction('pa1', { status: 'claimed', approval: 'person', creatorId: 'p1' });
    expect(await store.findById('pa1')).toStrictEqual(before);
    const { rows } = await pool.query('SELECT claim_fence, claim_expires_at FROM gatehouse_pending_actions');
    expect(rows).toEqual([{ claim_fence: null, claim_expires_at: null }]);
    // A claim written before the upgrade has no lease: it lapsed at once, so it is listed and claimable.
    expect(await store.listAwaitingApproval('t1', 0, 10)).toEqual([before]);
    expect(await store.claim('pa1', ['pending'], { fence: 'f1', expiresAt: 500 }, 0)).toBe(true);
    expect(await store.listAwaitingApproval('t1', 0, 10)).toEqual([]);
    const claimed = await pool.query('SELECT claim_fence, claim_expires_at FROM gatehouse_pending_actions');
    expect(claimed.rows).toEqual([{ claim_fence: 'f1', claim_expires_at: 500 }]);
  });

  it('upgrades a version 4 database in place: a bucket from before keeps its tokens, and a version 4 replica can still take', async () => {
    const { pool } = await fresh();
    await pool.query(`CREATE TABLE gatehouse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL);
      ${POSTGRES_MIGRATIONS.slice(0, 4)
        .map((migration) => migration.sql)
        .join('\n')}
      INSERT INTO gatehouse_migrations VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0), (4, 'd', 0);
      INSERT INTO gatehouse_rate_buckets VALUES (convert_to('c1:write', 'UTF8'), 1, 0, 1000000, true);`);
    expect(await migrateGatehouseSchemaPostgres(pool, 7)).toEqual({ from: 4, to: 5, applied: [5] });
    const limit = { capacity: 3, refillPerSecond: 0.001 };
    const store = new PostgresRateBucketStore(pool);
    const answers = await Promise.all([store.take('c1:write', limit, 0), store.take('c1:write', limit, 0)]);
    expect(answers).toEqual([
      { ok: true, remaining: 0 },
      { ok: false, retryAfterMs: 1_000_000 },
    ]);
    // A replica still on version 4 runs its take without the new column: the default fills it.
    await pool.query(`INSERT INTO gatehouse_rate_buckets AS r (key, tokens, at, expires_at, granted)
      VALUES (convert_to('c2:write', 'UTF8'), 2, 0, 1000, true)
      ON CONFLICT (key) DO UPDATE SET tokens = r.tokens - 1, granted = true RETURNING tokens, granted`);
    expect(await store.take('c2:write', limit, 0)).toEqual({ ok: true, remaining: 1 });
  });

  it('refuses bad options before touching the database', async () => {
    const { pool } = await fresh();
    await expect(createPostgresStores(pool, { sweepBatch: 1 })).rejects.toThrow(ConfigurationError);
    await expect(createPostgresStores(pool, { expiredRetentionMs: -1 })).rejects.toThrow(ConfigurationError);
    const { rows } = await pool.query("SELECT to_regclass('gatehouse_migrations') AS t");
    expect(rows).toEqual([{ t: null }]);
  });

  it('purges only expired rows, a few per statement, until none is left', async () => {
    const { pool } = await fresh();
    const stores = await createPostgresStores(pool, { sweepBatch: 2, expiredRetentionMs: 1_000 });
    for (let i = 0; i < 7; i++) {
      const begun = await stores.replay.begin(`old${i}`, 'd', 10, 0); // expires at 10
      if (begun.state === 'started') await stores.replay.complete(`old${i}`, begun.fence, 'd', { i }, 50, 0);
    }
    await stores.replay.begin('live', 'd', 60_000, 0);
    for (let i = 0; i < 5; i++)
      await stores.rateBuckets.take(`c${i}:read`, { capacity: 1, refillPerSecond: 1 }, 0);
    await stores.rateBuckets.take('busy:read', { capacity: 1, refillPerSecond: 0.0001 }, 0);
    const action = (id: string, expiresAt: number, createdAt = 0) => ({
      id,
      tokenHash: `h_${id}`,
      connectionId: 'c1',
      tenantId: 't1',
      tool: 'mail_visitor',
      arguments: {},
      argumentsDigest: 'd',
      contentHash: 'c',
      summary: 's',
      createdAt,
      expiresAt,
      status: 'pending' as const,
    });
    await stores.pendingActions.insert(action('gone', 500)); // expired long enough before 2,000
    await stores.pendingActions.insert(action('recent', 1_500)); // expired, still within the retention
    await stores.pendingActions.insert(action('later', 20_000, 10_000)); // an insert deletes nothing expired
    expect(await stores.pendingActions.findById('gone')).toBeDefined();
    await stores.authorization.save('AccessToken', 'gone', { payload: '{}', expiresAt: 1_000 });
    await stores.authorization.save('AccessToken', 'live', { payload: '{}', expiresAt: 3_000 });
    const query = vi.spyOn(pool, 'query');
    const counts = await stores.purgeExpired(2_000);
    const deletes = query.mock.calls.filter(([sql]) => String(sql).trimStart().startsWith('DELETE'));
    query.mockRestore();
    expect(counts).toEqual({ replay: 7, pendingActions: 1, rateBuckets: 5, authorization: 1 });
    // 7 replay rows at 2 a statement: 4 statements; 1 action: 1; 5 buckets: 3; authorization records: 1
    expect(deletes).toHaveLength(9);
    const left = await pool.query<{ k: string }>(
      "SELECT convert_from(key, 'UTF8') AS k FROM gatehouse_replay UNION ALL SELECT convert_from(key, 'UTF8') FROM gatehouse_rate_buckets UNION ALL SELECT id FROM gatehouse_pending_actions ORDER BY 1",
    );
    expect(left.rows.map((r) => r.k)).toEqual(['busy:read', 'later', 'live', 'recent']);
    expect(await stores.purgeExpired(2_000)).toEqual({
      replay: 0,
      pendingActions: 0,
      rateBuckets: 0,
      authorization: 0,
    });
    expect(await stores.authorization.find('AccessToken', 'id', 'live', 2_000)).toBeDefined();
  });

  it('answers ping while the database answers, and rejects once it does not', async () => {
    const { pool } = await fresh();
    const stores = await createPostgresStores(pool);
    await expect(stores.ping()).resolves.toBeUndefined();
    await pool.end();
    await expect(stores.ping()).rejects.toThrow();
  });
});
