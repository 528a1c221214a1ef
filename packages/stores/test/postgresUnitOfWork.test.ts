// postgresUnitOfWork (I10, I15): the product write, its audit row and its
// replay completion commit together on one PoolClient, or not at all, also
// when the audit append or the replay completion fails after the write.
import { type AuditStore, REPLAY_NOTE, type ReplayStore, ToolError } from '@gatehousejs/core';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresPool, postgresUnitOfWork } from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';
import {
  type Counts,
  emptyTables,
  openPostgresWriteServer,
  type PostgresWriteServer,
} from './fixtures/postgresWriteServer.js';
import { deferred, pause, until } from './fixtures/timing.js';

const available = await postgresAvailable();

const NOTHING: Counts = { visits: 0, replay: 0, audit: 0, mails: 0 };
const ONCE: Counts = { visits: 1, replay: 1, audit: 1, mails: 0 };

/** A switch the test turns off to end the fault. */
interface Fault {
  on: boolean;
}

/** An audit store whose append, inside a unit of work, writes its row and then fails. */
const failingAudit =
  (fault: Fault) =>
  (store: AuditStore): AuditStore => ({
    async append(row, unit) {
      await store.append(row, unit);
      if (fault.on && unit !== undefined) throw new Error('The audit disk is full.');
    },
    list: (query) => store.list(query),
  });

/** A replay store whose completion, while the fault is on, writes and then throws, or reports its fence lost. */
const failingReplay =
  (fault: Fault, how: 'throw' | 'fence lost') =>
  (store: ReplayStore): ReplayStore => ({
    begin: (...args) => store.begin(...args),
    async complete(...args) {
      if (!fault.on) return store.complete(...args);
      if (how === 'fence lost') return false;
      await store.complete(...args);
      throw new Error('The replay disk is full.');
    },
    release: (...args) => store.release(...args),
    holds: (...args) => store.holds(...args),
    renew: (...args) => store.renew(...args),
  });

describe.skipIf(!available)('postgresUnitOfWork', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await openPostgresWriteServer(database.pool); // migrates and creates the product tables
  });
  beforeEach(() => emptyTables(database.pool));
  afterAll(() => database?.drop());

  /** The call fails as `code`, leaves nothing behind, and once the fault ends a retry runs exactly once. */
  async function expectNothingKeptThenOneRetry(app: PostgresWriteServer, fault: Fault, code: string) {
    const failed = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
    expect(failed.structuredContent).toMatchObject({ error: { code } });
    expect(await app.counts()).toEqual(NOTHING);
    fault.on = false;
    const retried = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
    expect(retried.structuredContent).toMatchObject({ status: 'ok', result: { visit: { slot: 's1' } } });
    expect(retried.structuredContent.replayed).toBeUndefined();
    const again = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
    expect(again.structuredContent).toMatchObject({ replayed: true });
    expect(await app.counts()).toEqual(ONCE);
    expect(database.pool.idleCount + database.pool.waitingCount).toBe(database.pool.totalCount);
  }

  it('commits the write, its audit row and its replay record together, and replays a re-sent call', async () => {
    const app = await openPostgresWriteServer(database.pool);
    const first = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' }, { requestId: 1 });
    expect(first.structuredContent).toMatchObject({ status: 'ok', result: { visit: { id: 'v_1' } } });
    const again = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' }, { requestId: 2 });
    expect(again.structuredContent).toMatchObject({
      result: { visit: { id: 'v_1' } },
      replayed: true,
      replay_note: REPLAY_NOTE,
    });
    expect(await app.counts()).toEqual(ONCE);
    // seen from another pool (another replica): committed, completed, audited
    const other = createPostgresPool({ connectionString: database.url, max: 1 });
    try {
      const replay = await other.query("SELECT state FROM gatehouse_replay WHERE state = 'completed'");
      const audit = await other.query('SELECT action, channel, connection_id FROM gatehouse_audit');
      expect(replay.rowCount).toBe(1);
      expect(audit.rows).toEqual([{ action: 'book_visit', channel: 'mcp', connection_id: 'conn_1' }]);
    } finally {
      await other.end();
    }
    expect(app.stores.unitOfWork.atomic).toBe(true);
  });

  it('keeps the write invisible to other connections until the unit commits', async () => {
    const held = deferred();
    const app = await openPostgresWriteServer(database.pool, { hooks: { beforeCommit: () => held.promise } });
    const visits = async () => (await database.pool.query('SELECT id FROM visits')).rowCount;
    const call = app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
    await until(() => database.pool.totalCount > database.pool.idleCount);
    await pause(50);
    expect(await visits()).toBe(0);
    held.resolve();
    expect((await call).structuredContent).toMatchObject({ status: 'ok' });
    expect(await visits()).toBe(1);
  });

  it('rolls back the write and frees the replay key when the service refuses or throws after writing', async () => {
    const app = await openPostgresWriteServer(database.pool);
    const refused = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'refuse' });
    expect(refused.structuredContent).toMatchObject({ error: { code: 'invalid_arguments' } });
    expect(await app.counts()).toEqual(NOTHING);
    const thrown = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'throw' });
    expect(thrown.structuredContent).toMatchObject({ error: { code: 'internal_error' } });
    expect(await app.counts()).toEqual(NOTHING);
    const mailed = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'mail' });
    expect(mailed.structuredContent).toMatchObject({ error: { code: 'effect_violation' } });
    expect(await app.counts()).toEqual({ ...NOTHING, audit: 1 }); // the violation row, written after the rollback
    const retried = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
    expect(retried.structuredContent).toMatchObject({ status: 'ok' });
    expect(await app.counts()).toEqual({ ...ONCE, audit: 2 });
  });

  it('keeps no write, no audit row and no replay record when the audit append fails after the write, and a retry runs once', async () => {
    const fault = { on: true };
    const app = await openPostgresWriteServer(database.pool, { audit: failingAudit(fault) });
    await expectNothingKeptThenOneRetry(app, fault, 'internal_error');
    expect(app.internalErrors).toEqual([new Error('The audit disk is full.')]);
  });

  it('keeps no write, no audit row and no replay record when the replay completion throws after writing', async () => {
    const fault = { on: true };
    const app = await openPostgresWriteServer(database.pool, { replayStore: failingReplay(fault, 'throw') });
    await expectNothingKeptThenOneRetry(app, fault, 'internal_error');
    expect(app.internalErrors).toEqual([new Error('The replay disk is full.')]);
  });

  it('keeps no write, no audit row and no replay record when the replay completion finds its fence lost', async () => {
    const fault = { on: true };
    const app = await openPostgresWriteServer(database.pool, {
      replayStore: failingReplay(fault, 'fence lost'),
    });
    await expectNothingKeptThenOneRetry(app, fault, 'store_unavailable');
    expect(app.internalErrors).toEqual([]);
  });

  it('commits what the work wrote when it resolves and nothing when it throws; the handle is a PoolClient', async () => {
    const unit = postgresUnitOfWork(database.pool);
    const id = await unit.run(async (client) => {
      const { rows } = await client.query<{ id: number }>(
        "INSERT INTO visits (tenant_id, slot) VALUES ('t1', 'a') RETURNING id",
      );
      return rows[0]?.id;
    });
    expect(id).toBe(1);
    await expect(
      unit.run(async (client) => {
        await client.query("INSERT INTO visits (tenant_id, slot) VALUES ('t1', 'b')");
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const { rows } = await database.pool.query('SELECT slot FROM visits');
    expect(rows).toEqual([{ slot: 'a' }]);
  });

  it('fails, keeping nothing, when a statement failed inside the unit and the work went on', async () => {
    const unit = postgresUnitOfWork(database.pool);
    await expect(
      unit.run(async (client) => {
        await client.query("INSERT INTO visits (tenant_id, slot) VALUES ('t1', 'a')");
        await client.query('SELECT * FROM no_such_table').catch(() => undefined);
        return 'done';
      }),
    ).rejects.toThrow(/rolled the transaction back/);
    expect((await database.pool.query('SELECT id FROM visits')).rowCount).toBe(0);
  });

  it('fails, keeping nothing and without crashing the process, when the database drops the unit’s connection', async () => {
    const unit = postgresUnitOfWork(database.pool);
    await expect(
      unit.run(async (client) => {
        await client.query("INSERT INTO visits (tenant_id, slot) VALUES ('t1', 'a')");
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await database.pool.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
        await pause(100); // the client hears of it while the work holds it
        return 'done';
      }),
    ).rejects.toThrow();
    expect((await database.pool.query('SELECT id FROM visits')).rowCount).toBe(0);
    await expect(unit.run(async (client) => (await client.query('SELECT 1 AS one')).rows)).resolves.toEqual([
      { one: 1 },
    ]);
  });

  it('refuses with store_unavailable, running nothing, when the database cannot be reached', async () => {
    const unreachable = createPostgresPool({ connectionString: 'postgres://nobody@127.0.0.1:9/none' });
    let ran = false;
    try {
      const failure = await postgresUnitOfWork(unreachable)
        .run(async () => {
          ran = true;
        })
        .catch((error: unknown) => error);
      expect(ToolError.is(failure)).toBe(true);
      expect(failure).toMatchObject({
        code: 'store_unavailable',
        message: expect.stringContaining('Nothing ran.'),
      });
      expect(String((failure as Error).message)).not.toContain('127.0.0.1');
      expect(ran).toBe(false);
    } finally {
      await unreachable.end();
    }
  });

  it('runs two units that serialize one key one after the other, and units on different keys side by side', async () => {
    const unit = postgresUnitOfWork(database.pool);
    const events: string[] = [];
    const gate = deferred();
    const holder = (name: string, key: string, hold?: Promise<void>) =>
      unit.run(async (client) => {
        await unit.serialize!(client, key);
        events.push(`${name} locked`);
        await hold;
        events.push(`${name} done`);
      });
    const first = holder('a', 'create_booking|c1|mon', gate.promise);
    await until(() => events.includes('a locked'));
    const same = holder('b', 'create_booking|c1|mon');
    const other = holder('c', 'create_booking|c2|mon');
    await other;
    await pause(50);
    expect(events).toEqual(['a locked', 'c locked', 'c done']);
    gate.resolve();
    await Promise.all([first, same]);
    expect(events).toEqual(['a locked', 'c locked', 'c done', 'a done', 'b locked', 'b done']);
  });

  it('refuses anything but a pool', () => {
    expect(() => postgresUnitOfWork({} as pg.Pool)).toThrow(/pass a pg Pool/);
  });
});
