/**
 * Lock waits in one process: a second connection on the same file holds
 * `BEGIN IMMEDIATE` while the stores and the unit of work try to write. The
 * holder lives on this thread, so a write that waited in SQLite's native busy
 * handler would stall the test until its timeout and could never see the
 * release; these writes wait on timers instead.
 */
import type { AuditRow } from '@gatehousejs/core';
import { ConfigurationError, ToolError } from '@gatehousejs/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSqliteStores,
  createWriteLock,
  openDatabase,
  SqliteAuditStore,
  type SqliteDatabase,
  sqliteUnitOfWork,
} from '../src/index.js';
import { retryWhileBusy } from '../src/internal/lockWait.js';
import { watchLoop } from './fixtures/loopWatch.js';
import { type TempDatabase, tempDatabase } from './fixtures/tempDatabase.js';
import { pause, tracked } from './fixtures/timing.js';

const row = (id: string): AuditRow => ({
  id,
  at: 1,
  channel: 'mcp',
  tenantId: 't1',
  connectionId: 'conn_1',
  clientName: 'test',
  actorId: 'p1',
  action: 'book_visit',
  outcome: 'ok',
  objectIds: [],
  note: null,
});

const auditIds = (db: SqliteDatabase) =>
  db
    .prepare<[], { id: string }>('SELECT id FROM gatehouse_audit ORDER BY rowid')
    .all()
    .map((r) => r.id);

let temp: TempDatabase;
afterEach(() => temp?.dispose());

/**
 * A migrated file, the handle the stores write on (busy timeout 5,000), and a
 * second connection that takes the write lock once `build` has set up what
 * the test writes through.
 */
function held<T>(build: (db: SqliteDatabase) => T) {
  temp = tempDatabase();
  const db = temp.open();
  const built = build(db);
  const holder = temp.open();
  holder.exec('BEGIN IMMEDIATE');
  return { db, holder, built };
}

describe('store writes while another connection holds the database', () => {
  it('wait on timers, keep the event loop serving, and land once the lock is released', async () => {
    const { db, holder, built: stores } = held((db) => createSqliteStores(db, { lockWaitMs: 3_000 }));
    const loop = watchLoop();
    const append = tracked(stores.audit.append(row('a1')));
    await pause(150);
    expect(append.settled()).toBe(false);
    expect(auditIds(db)).toEqual([]);
    holder.exec('COMMIT');
    await append.promise;
    expect(loop.stop()).toBeLessThan(100);
    expect(auditIds(db)).toEqual(['a1']);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5_000);
  });

  it('reject with SQLITE_BUSY after lockWaitMs, counted from the call, and write nothing', async () => {
    const { db, holder, built: stores } = held((db) => createSqliteStores(db, { lockWaitMs: 200 }));
    const started = Date.now();
    const failures = await Promise.allSettled([
      stores.audit.append(row('a1')),
      stores.switches.set('global', true),
      stores.rateBuckets.take('c1:write', { capacity: 5, refillPerSecond: 1 }, 0),
    ]);
    const elapsed = Date.now() - started;
    for (const failure of failures) {
      expect(failure).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_BUSY' } });
    }
    // Queued behind each other on the write lock, all three still end near one deadline.
    expect(elapsed).toBeGreaterThanOrEqual(195);
    expect(elapsed).toBeLessThan(600);
    holder.exec('ROLLBACK');
    expect(auditIds(db)).toEqual([]);
    expect(stores.switches.getSync('global')).toBeUndefined();
    expect(db.prepare('SELECT count(*) AS n FROM gatehouse_rate_buckets').get()).toEqual({ n: 0 });
  });

  it('keep the write lock first come, first served while they wait', async () => {
    const { db, holder, built: stores } = held((db) => createSqliteStores(db, { lockWaitMs: 3_000 }));
    const writes = ['a1', 'a2', 'a3'].map((id) => stores.audit.append(row(id)));
    await pause(60);
    holder.exec('COMMIT');
    await Promise.all(writes);
    expect(auditIds(db)).toEqual(['a1', 'a2', 'a3']);
  });

  it('try once with lockWaitMs 0', async () => {
    const { db, holder, built: audit } = held((db) => new SqliteAuditStore(db, { lockWaitMs: 0 }));
    const started = Date.now();
    await expect(audit.append(row('a1'))).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(Date.now() - started).toBeLessThan(50);
    holder.exec('ROLLBACK');
    await audit.append(row('a2'));
    expect(auditIds(db)).toEqual(['a2']);
  });
});

describe('sqliteUnitOfWork while another connection holds the database', () => {
  it('begins once the lock is released and commits the work', async () => {
    const {
      db,
      holder,
      built: unit,
    } = held((db) => {
      db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
      return sqliteUnitOfWork(db, createWriteLock(), { lockWaitMs: 3_000 });
    });
    const loop = watchLoop();
    let ran = false;
    const run = tracked(
      unit.run(async (handle) => {
        ran = true;
        handle.prepare("INSERT INTO notes (text) VALUES ('kept')").run();
      }),
    );
    await pause(150);
    expect(ran).toBe(false);
    holder.exec('COMMIT');
    await run.promise;
    expect(loop.stop()).toBeLessThan(100);
    expect(db.prepare('SELECT text FROM notes').all()).toEqual([{ text: 'kept' }]);
  });

  it('answers store_unavailable after lockWaitMs and runs nothing', async () => {
    const {
      db,
      holder,
      built: unit,
    } = held((db) => sqliteUnitOfWork(db, createWriteLock(), { lockWaitMs: 150 }));
    let ran = false;
    const started = Date.now();
    const failed = await unit
      .run(async () => {
        ran = true;
      })
      .catch((error: unknown) => error);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(145);
    expect(elapsed).toBeLessThan(1_000);
    expect(ToolError.is(failed)).toBe(true);
    expect(failed).toMatchObject({
      code: 'store_unavailable',
      message: 'The database is busy. Nothing ran.',
      fix: 'Retry shortly.',
    });
    expect(ran).toBe(false);
    expect(db.inTransaction).toBe(false);
    holder.exec('ROLLBACK');
  });

  it('refuses a lockWaitMs that is not a non-negative integer, before touching the database', () => {
    temp = tempDatabase();
    const db = openDatabase(`${temp.dir}/fresh.db`);
    const lock = createWriteLock();
    for (const lockWaitMs of [-1, 1.5, Number.NaN]) {
      expect(() => sqliteUnitOfWork(db, lock, { lockWaitMs })).toThrow(ConfigurationError);
      expect(() => createSqliteStores(db, { lockWaitMs })).toThrow(
        /lockWaitMs must be a non-negative integer/,
      );
    }
    expect(() => new SqliteAuditStore(db, { lockWaitMs: -5 })).toThrow(/SqliteAuditStore: lockWaitMs/);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'gatehouse%'").get()).toEqual({
      n: 0,
    });
    db.close();
  });
});

describe('retryWhileBusy', () => {
  const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

  it('pauses 2 ms doubling to 50 ms, with jitter, between attempts', async () => {
    temp = tempDatabase();
    const db = temp.open();
    const at: number[] = [];
    const result = await retryWhileBusy(
      db,
      () => {
        at.push(performance.now());
        if (at.length < 9) throw busy();
        return 'done';
      },
      Date.now() + 5_000,
    );
    expect(result).toBe('done');
    const gaps = at.slice(1).map((t, i) => t - (at[i] ?? 0));
    const backoff = [2, 4, 8, 16, 32, 50, 50, 50];
    // each pause lies between half the backoff and the backoff (plus timer slack)
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual((backoff[i] ?? 0) / 2 - 1);
      expect(gap).toBeLessThan((backoff[i] ?? 0) + 40);
    });
  });

  it('runs each attempt with the busy timeout off and restores it', async () => {
    temp = tempDatabase();
    const db = temp.open();
    const seen: unknown[] = [];
    await retryWhileBusy(db, () => seen.push(db.pragma('busy_timeout', { simple: true })), Date.now());
    expect(seen).toEqual([0]);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5_000);
  });

  it('throws any other error, and a busy error inside an open transaction, at once', async () => {
    temp = tempDatabase();
    const db = temp.open();
    let attempts = 0;
    const boom = new Error('no such table');
    await expect(
      retryWhileBusy(
        db,
        () => {
          attempts++;
          throw boom;
        },
        Date.now() + 5_000,
      ),
    ).rejects.toBe(boom);
    db.exec('BEGIN');
    await expect(
      retryWhileBusy(
        db,
        () => {
          attempts++;
          throw busy();
        },
        Date.now() + 5_000,
      ),
    ).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    db.exec('ROLLBACK');
    expect(attempts).toBe(2);
  });
});
