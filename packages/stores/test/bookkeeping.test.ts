/**
 * What a write costs the database, statement by statement, on every
 * connection: a rate take and a replay claim are one statement each, on the
 * stores' bookkeeping connection (synchronous NORMAL: no fsync of their
 * own); the unit of work is BEGIN IMMEDIATE, the host's statements, the
 * replay completion and COMMIT on the host's handle (synchronous FULL: the
 * one fsync, which syncs the shared log past the claim). No PRAGMA runs per
 * call on a handle whose busy timeout is 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReplayBegin } from '@gatehousejs/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isPragma, type TracedStatement, traceStatements } from '../../../test/statementTrace.js';
import { createSqliteStores, openDatabase, type SqliteDatabase, type SqliteStores } from '../src/index.js';

const dirs: string[] = [];
const handles: { close(): void }[] = [];
afterEach(() => {
  for (const handle of handles.splice(0)) handle.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const freshFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bookkeeping-'));
  dirs.push(dir);
  return join(dir, 'app.db');
};

/** A product file with a `notes` table and the stores on its handle. */
function product(busyTimeoutMs: number, options: { durableClaims?: boolean } = {}) {
  const db = openDatabase(freshFile(), { busyTimeoutMs });
  db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
  const stores = createSqliteStores(db, options);
  handles.push({ close: () => stores.close() }, db);
  return { db, stores };
}

const fenceOf = (begin: ReplayBegin): string => {
  if (begin.state !== 'started') throw new Error(`expected to start the key, found it ${begin.state}`);
  return begin.fence;
};

const limit = { capacity: 100, refillPerSecond: 1 };

/**
 * A write as core runs it: rate take, claim, then the unit with the host's
 * insert and the completion; `separate`: as under `separateCommits()`, the
 * completion committing on its own, outside any unit on the handle.
 */
async function write(stores: SqliteStores, key: string, now: number, commits: 'unit' | 'separate' = 'unit') {
  await stores.rateBuckets.take('c1:write', limit, now);
  const fence = fenceOf(await stores.replay.begin(key, 'd', 10_000, now));
  if (commits === 'separate') {
    await stores.replay.complete(key, fence, 'd', { id: key }, 60_000, now);
    return;
  }
  await stores.unitOfWork.run(async (handle) => {
    handle.prepare("INSERT INTO notes (text) VALUES ('kept')").run();
    await stores.replay.complete(key, fence, 'd', { id: key }, 60_000, now, handle);
  });
}

const where = (db: SqliteDatabase) => (statement: TracedStatement) =>
  statement.database === db ? 'handle' : statement.database.name === db.name ? 'bookkeeping' : 'elsewhere';

describe('createSqliteStores on a WAL file', () => {
  it('runs a take and a claim as one statement each on the bookkeeping connection, and no PRAGMA per take, claim or unit on a handle with busy timeout 0', async () => {
    const { db, stores } = product(0);
    await write(stores, 'warm', 0); // the first completion inside the unit pairs claims with it
    using trace = traceStatements();
    await stores.rateBuckets.take('c1:write', limit, 1);
    const take = trace.take();
    const fence = fenceOf(await stores.replay.begin('k1', 'd', 10_000, 1));
    const claim = trace.take();
    await stores.unitOfWork.run(async (handle) => {
      handle.prepare("INSERT INTO notes (text) VALUES ('kept')").run();
      await stores.replay.complete('k1', fence, 'd', { id: 'k1' }, 60_000, 1, handle);
    });
    const unit = trace.take();
    expect(take.map(where(db))).toEqual(['bookkeeping']);
    expect(take[0]?.source).toMatch(/^INSERT INTO gatehouse_rate_buckets/);
    expect(claim.map(where(db))).toEqual(['bookkeeping']);
    expect(claim[0]?.source).toMatch(/^\s*INSERT INTO gatehouse_replay/);
    expect(unit.map((s) => s.source.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'BEGIN IMMEDIATE',
      'INSERT INTO notes',
      'INSERT INTO gatehouse_replay',
      'COMMIT',
    ]);
    expect(unit.map(where(db))).toEqual(['handle', 'handle', 'handle', 'handle']);
    expect([...take, ...claim, ...unit].filter(isPragma)).toEqual([]);
  });

  it('turns the busy handler off around a unit’s BEGIN with two PRAGMAs on a handle with a busy timeout, and runs none per take or claim', async () => {
    const { db, stores } = product(5_000);
    await write(stores, 'warm', 0);
    using trace = traceStatements();
    await write(stores, 'k1', 1);
    const pragmas = trace.take().filter(isPragma);
    expect(pragmas.map((s) => [s.source, where(db)(s)])).toEqual([
      ['PRAGMA busy_timeout = 0', 'handle'],
      ['PRAGMA busy_timeout = 5000', 'handle'],
    ]);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5_000);
  });

  it('claims on the handle until a completion inside the unit pairs claims with it, and for good after a completion outside one', async () => {
    const { db, stores } = product(0);
    using trace = traceStatements();
    const claimedOn = async (key: string, now: number) => {
      trace.take();
      await stores.replay.begin(key, 'd', 10_000, now);
      return trace.take().map(where(db));
    };
    expect(await claimedOn('first', 0)).toEqual(['handle']);
    await write(stores, 'paired', 1);
    expect(await claimedOn('second', 2)).toEqual(['bookkeeping']);
    await write(stores, 'separate', 3, 'separate'); // the completion outside a unit on the handle
    expect(await claimedOn('third', 4)).toEqual(['handle']);
    await write(stores, 'paired-again', 5);
    expect(await claimedOn('fourth', 6)).toEqual(['handle']);
  });

  it('keeps every claim on the handle with durableClaims, and takes on the bookkeeping connection', async () => {
    const { db, stores } = product(0, { durableClaims: true });
    await write(stores, 'warm', 0);
    using trace = traceStatements();
    await write(stores, 'k1', 1);
    const byTable = trace
      .take()
      .filter((s) => /^\s*INSERT INTO gatehouse_(rate_buckets|replay)/.test(s.source))
      .map((s) => [s.source.trim().split(/\s+/)[2], where(db)(s)]);
    expect(byTable).toEqual([
      ['gatehouse_rate_buckets', 'bookkeeping'],
      ['gatehouse_replay', 'handle'], // the claim
      ['gatehouse_replay', 'handle'], // the completion, in the unit
    ]);
  });

  it('opens the bookkeeping connection with synchronous NORMAL and busy timeout 0, leaves the handle FULL, and closes it with close()', async () => {
    const { db, stores } = product(5_000);
    using trace = traceStatements();
    await stores.rateBuckets.take('c1:write', limit, 0);
    const bookkeeping = trace.take().find((s) => where(db)(s) === 'bookkeeping')?.database;
    if (!bookkeeping) throw new Error('the take ran on no bookkeeping connection');
    expect(bookkeeping.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(bookkeeping.pragma('busy_timeout', { simple: true })).toBe(0);
    expect(bookkeeping.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    stores.close();
    expect(bookkeeping.open).toBe(false);
    trace.take();
    await stores.rateBuckets.take('c1:write', limit, 1); // later bookkeeping runs on the handle
    const after = trace.take();
    expect(after.filter((s) => !isPragma(s)).map(where(db))).toEqual(['handle']);
  });
});

describe('createSqliteStores where a second connection would not share the log', () => {
  const runsOn = async (db: SqliteDatabase, stores: SqliteStores) => {
    await write(stores, 'warm', 0);
    using trace = traceStatements();
    await write(stores, 'k1', 1);
    return [...new Set(trace.take().map(where(db)))];
  };

  it('writes everything on the handle in memory', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
    const stores = createSqliteStores(db);
    handles.push(db);
    expect(await runsOn(db, stores)).toEqual(['handle']);
  });

  it('writes everything on the handle outside WAL mode', async () => {
    const db = new Database(freshFile());
    db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
    const stores = createSqliteStores(db);
    handles.push(db);
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(await runsOn(db, stores)).toEqual(['handle']);
  });

  it('writes everything on the handle when another file is attached', async () => {
    const db = openDatabase(freshFile(), { busyTimeoutMs: 0 });
    db.exec(`ATTACH DATABASE '${freshFile()}' AS other`);
    db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
    const stores = createSqliteStores(db);
    handles.push(db);
    expect(await runsOn(db, stores)).toEqual(['handle']);
  });
});
