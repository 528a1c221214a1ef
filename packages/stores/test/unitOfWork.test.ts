import { join } from 'node:path';
import { ConfigurationError, REPLAY_NOTE, ToolError } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { createSqliteStores, createWriteLock, openDatabase, sqliteUnitOfWork } from '../src/index.js';
import { tempDatabase } from './fixtures/tempDatabase.js';
import { deferred, pause, tracked, until } from './fixtures/timing.js';
import {
  type Counts,
  openWriteServer,
  type WriteServer,
  type WriteServerOptions,
} from './fixtures/writeServer.js';

/** Runs `fn` with a write server on a fresh file; closes and deletes it afterwards. */
async function withServer(
  fn: (app: WriteServer, file: string) => Promise<void>,
  options: WriteServerOptions = {},
): Promise<void> {
  const temp = tempDatabase();
  const file = join(temp.dir, 'product.db');
  const app = openWriteServer(file, options);
  try {
    await fn(app, file);
  } finally {
    if (app.db.open) app.db.close();
    temp.dispose();
  }
}

const NOTHING: Counts = { visits: 0, replay: 0, audit: 0, mails: 0 };
const ONCE: Counts = { visits: 1, replay: 1, audit: 1, mails: 0 };

describe('sqliteUnitOfWork', () => {
  it('commits the write, its audit row and its replay record together, and replays a re-sent call', async () => {
    await withServer(async (app, file) => {
      const first = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' }, { requestId: 1 });
      expect(first.structuredContent).toMatchObject({ status: 'ok', result: { visit: { id: 'v_1' } } });
      const again = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' }, { requestId: 2 });
      expect(again.structuredContent).toMatchObject({
        status: 'ok',
        result: { visit: { id: 'v_1' } },
        replayed: true,
        replay_note: REPLAY_NOTE,
      });
      expect(app.counts()).toEqual(ONCE);
      const other = openDatabase(file);
      expect(other.prepare('SELECT count(*) AS n FROM visits').get()).toEqual({ n: 1 });
      expect(
        other.prepare("SELECT state FROM gatehouse_replay WHERE state = 'completed'").all(),
      ).toHaveLength(1);
      other.close();
      expect(app.db.inTransaction).toBe(false);
      expect(app.stores.unitOfWork.atomic).toBe(true);
    });
  });

  it('rolls back the write and frees the replay key when the service refuses or throws after writing', async () => {
    await withServer(async (app) => {
      const refused = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'refuse' });
      expect(refused.structuredContent).toMatchObject({ error: { code: 'invalid_arguments' } });
      expect(app.counts()).toEqual(NOTHING);
      const thrown = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'throw' });
      expect(thrown.structuredContent).toMatchObject({ error: { code: 'internal_error' } });
      expect(app.counts()).toEqual(NOTHING);
      const retried = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      expect(retried.structuredContent).toMatchObject({ status: 'ok' });
      expect(retried.structuredContent.replayed).toBeUndefined();
      expect(app.counts()).toEqual(ONCE);
    });
  });

  it('rolls back a write that reached an outward port and records the violation once, after the rollback', async () => {
    await withServer(async (app) => {
      const reply = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'mail' });
      expect(reply.structuredContent).toMatchObject({ error: { code: 'effect_violation' } });
      expect(app.counts()).toEqual({ visits: 0, replay: 0, mails: 0, audit: 1 });
      const [row] = app.stores.audit.listSync({ limit: 10 });
      expect(row).toMatchObject({ action: 'book_visit', outcome: 'violation', connectionId: 'conn_1' });
      expect(row?.note).toContain('reached notify port mailer.send during run');
    });
  });

  it('serializes concurrent writes, each in its own transaction', async () => {
    await withServer(async (app) => {
      const slots = Array.from({ length: 40 }, (_, i) => `s${i % 20}`);
      const replies = await Promise.all(
        slots.map((slot, i) => app.server.callTool(app.connection, 'book_visit', { slot }, { requestId: i })),
      );
      expect(replies.every((r) => r.structuredContent.status === 'ok')).toBe(true);
      expect(replies.filter((r) => r.structuredContent.replayed === true)).toHaveLength(20);
      expect(app.counts()).toEqual({ visits: 20, replay: 20, audit: 20, mails: 0 });
      const slotsWritten = app.db.prepare<[], { slot: string }>('SELECT slot FROM visits').all();
      expect(new Set(slotsWritten.map((r) => r.slot)).size).toBe(20);
    });
  });

  it('lets a host write that takes stores.lock wait until an open unit of work has committed', async () => {
    const held = deferred();
    await withServer(
      async (app) => {
        const call = app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
        await until(() => app.db.inTransaction);
        const seen: boolean[] = [];
        const hostWrite = tracked(app.stores.lock.run(() => seen.push(app.db.inTransaction)));
        await pause(20);
        expect(hostWrite.settled()).toBe(false);
        expect(seen).toEqual([]);
        held.resolve();
        await Promise.all([call, hostWrite.promise]);
        expect(seen).toEqual([false]);
        expect(app.counts()).toEqual(ONCE);
      },
      { hooks: { afterInsert: () => held.promise } },
    );
  });

  it('refuses with store_unavailable, running nothing, while another connection holds the database', async () => {
    await withServer(async (app, file) => {
      const other = openDatabase(file);
      other.exec('BEGIN IMMEDIATE');
      const reply = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      other.exec('ROLLBACK');
      other.close();
      expect(reply.structuredContent).toMatchObject({ error: { code: 'store_unavailable' } });
      expect(app.counts()).toEqual(NOTHING);
    });
  });

  it('refuses with store_unavailable when the database is busy at BEGIN, runs nothing, and runs the retry once after the lease', async () => {
    const temp = tempDatabase();
    const file = join(temp.dir, 'product.db');
    let now = Date.parse('2030-05-04T09:00:00Z');
    let taken = false;
    const other = openDatabase(file);
    const app = openWriteServer(file, {
      clock: () => new Date(now),
      replay: { leaseMs: 1_000, waitMs: 0 },
      hooks: {
        // Another connection takes the database after the replay claim, before the unit begins.
        beforeUnit: () => {
          if (taken) return;
          taken = true;
          other.exec('BEGIN IMMEDIATE');
        },
      },
    });
    try {
      const reply = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      other.exec('ROLLBACK');
      expect(reply.structuredContent).toMatchObject({
        error: { code: 'store_unavailable', message: 'The database is busy. Nothing ran.' },
      });
      expect(app.db.inTransaction).toBe(false);
      // The release could not be written while the database was held: the claim lives out its lease.
      expect(app.counts()).toEqual({ visits: 0, replay: 1, audit: 0, mails: 0 });
      const early = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      expect(early.structuredContent).toMatchObject({ error: { code: 'still_running' } });
      now += 1_000;
      const retried = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      expect(retried.structuredContent).toMatchObject({ status: 'ok', result: { visit: { id: 'v_1' } } });
      expect(retried.structuredContent.replayed).toBeUndefined();
      expect(app.counts()).toEqual(ONCE);
    } finally {
      other.close();
      app.db.close();
      temp.dispose();
    }
  });

  it('commits what the work wrote when it resolves and nothing when it throws', async () => {
    const temp = tempDatabase();
    const db = temp.open();
    try {
      db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
      const unit = sqliteUnitOfWork(db, createWriteLock());
      const insert = db.prepare<[string]>('INSERT INTO notes (text) VALUES (?)');
      expect(await unit.run(async (handle) => handle === db && insert.run('kept').changes)).toBe(1);
      await expect(
        unit.run(async () => {
          insert.run('dropped');
          throw new Error('after the write');
        }),
      ).rejects.toThrow('after the write');
      expect(db.prepare('SELECT text FROM notes').all()).toEqual([{ text: 'kept' }]);
      expect(db.inTransaction).toBe(false);
    } finally {
      temp.dispose();
    }
  });

  it('refuses to start inside a transaction already open on the handle, and runs nothing', async () => {
    const temp = tempDatabase();
    const db = temp.open();
    try {
      const unit = sqliteUnitOfWork(db, createWriteLock());
      db.exec('BEGIN');
      let ran = false;
      const started = unit.run(async () => {
        ran = true;
      });
      await expect(started).rejects.toSatisfy(
        (error) => ToolError.is(error) && error.code === 'store_unavailable',
      );
      await expect(started).rejects.toThrow(/Another transaction is open/);
      expect(ran).toBe(false);
      db.exec('ROLLBACK');
    } finally {
      temp.dispose();
    }
  });

  it('fails, keeping nothing, when SQLite ended the transaction before COMMIT', async () => {
    const temp = tempDatabase();
    const db = temp.open();
    try {
      db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
      const unit = sqliteUnitOfWork(db, createWriteLock());
      await expect(
        unit.run(async () => {
          db.exec("INSERT INTO notes (text) VALUES ('lost')");
          db.exec('ROLLBACK'); // as SQLite does by itself on some I/O errors
        }),
      ).rejects.toThrow(/ended the transaction before COMMIT/);
      expect(db.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 0 });
    } finally {
      temp.dispose();
    }
  });

  it('refuses anything but an open better-sqlite3 handle, and a lock without run()', () => {
    const lock = createWriteLock();
    expect(() => sqliteUnitOfWork({} as never, lock)).toThrow(ConfigurationError);
    const temp = tempDatabase();
    const db = temp.open();
    db.close();
    expect(() => sqliteUnitOfWork(db, lock)).toThrow(/open better-sqlite3/);
    expect(() => sqliteUnitOfWork(temp.open(), {} as never)).toThrow(/lock/);
    expect(() => createSqliteStores(temp.open(), { lock: {} as never })).toThrow(/lock/);
    temp.dispose();
  });
});

describe('createWriteLock', () => {
  it('runs work one at a time, in arrival order, and keeps going after a failure', async () => {
    const lock = createWriteLock();
    const order: string[] = [];
    const slow = (name: string, ms: number) =>
      lock.run(async () => {
        order.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        order.push(`end ${name}`);
      });
    const failing = lock.run(() => {
      throw new Error('boom');
    });
    await Promise.all([slow('a', 15), failing.catch(() => undefined), slow('b', 1)]);
    await expect(failing).rejects.toThrow('boom');
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
  });
});
