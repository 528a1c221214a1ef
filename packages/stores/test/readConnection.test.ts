import { join } from 'node:path';
import { ConfigurationError } from '@gatehousejs/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStores, createWriteLock, openDatabase, sqliteUnitOfWork } from '../src/index.js';
import { type TempDatabase, tempDatabase } from './fixtures/tempDatabase.js';
import { deferred, pause, tracked } from './fixtures/timing.js';

let temp: TempDatabase;
afterEach(() => temp?.dispose());

/** A WAL file with a `notes` table holding one committed row, and its write handle. */
function notesFile() {
  temp = tempDatabase();
  const db = temp.open();
  db.exec("CREATE TABLE notes (text TEXT NOT NULL); INSERT INTO notes (text) VALUES ('committed')");
  const reads = openDatabase(temp.file, { readonly: true });
  const texts = () => reads.prepare<[], { text: string }>('SELECT text FROM notes ORDER BY rowid').all();
  return { db, reads, texts };
}

describe('openDatabase(path, { readonly: true })', () => {
  it('never sees the uncommitted writes of a unit of work open on the write handle', async () => {
    const { db, reads, texts } = notesFile();
    const unit = sqliteUnitOfWork(db, createWriteLock());
    const inside = deferred();
    const written = deferred();
    const run = unit.run(async (handle) => {
      handle.prepare("INSERT INTO notes (text) VALUES ('pending')").run();
      written.resolve();
      await inside.promise;
    });
    await written.promise;
    expect(db.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 2 });
    expect(texts()).toEqual([{ text: 'committed' }]);
    inside.resolve();
    await run;
    expect(texts()).toEqual([{ text: 'committed' }, { text: 'pending' }]);
    reads.close();
  });

  it('reads at once while another connection holds the write lock with uncommitted rows', async () => {
    const { reads, texts } = notesFile();
    const writer = temp.open();
    writer.exec("BEGIN IMMEDIATE; INSERT INTO notes (text) VALUES ('uncommitted')");
    expect(reads.pragma('busy_timeout', { simple: true })).toBe(5_000);
    const started = performance.now();
    expect(texts()).toEqual([{ text: 'committed' }]);
    expect(performance.now() - started).toBeLessThan(100);
    writer.exec('COMMIT');
    expect(texts()).toHaveLength(2);
    reads.close();
  });

  it('refuses writes on the read connection and refuses it as the stores’ handle', async () => {
    const { reads, texts } = notesFile();
    expect(reads.readonly).toBe(true);
    expect(() => reads.exec("INSERT INTO notes (text) VALUES ('x')")).toThrow(
      expect.objectContaining({ code: 'SQLITE_READONLY' }),
    );
    expect(() => createSqliteStores(reads)).toThrow(ConfigurationError);
    expect(() => createSqliteStores(reads)).toThrow(/not a read-only one/);
    expect(texts()).toEqual([{ text: 'committed' }]);
    reads.close();
  });

  it('refuses :memory:, a file that is not in WAL mode, and a file that does not exist', () => {
    temp = tempDatabase();
    expect(() => openDatabase(':memory:', { readonly: true })).toThrow(ConfigurationError);
    expect(() => openDatabase('', { readonly: true })).toThrow(/not :memory:/);
    const journal = join(temp.dir, 'journal.db');
    const plain = new Database(journal);
    plain.exec('CREATE TABLE t (x)');
    plain.close();
    expect(() => openDatabase(journal, { readonly: true })).toThrow(/needs a file in WAL mode/);
    expect(() => openDatabase(join(temp.dir, 'missing.db'), { readonly: true })).toThrow();
  });

  it('keeps reading while a store write on the write handle waits for another process’s lock', async () => {
    const { db, reads, texts } = notesFile();
    const stores = createSqliteStores(db, { lockWaitMs: 2_000 });
    const holder = temp.open();
    holder.exec('BEGIN IMMEDIATE');
    const waiting = tracked(stores.switches.set('global', true));
    await pause(30);
    expect(texts()).toEqual([{ text: 'committed' }]);
    expect(waiting.settled()).toBe(false);
    holder.exec('COMMIT');
    expect(await waiting.promise).toBeUndefined();
    expect(reads.prepare('SELECT is_on FROM gatehouse_switches').get()).toEqual({ is_on: 1 });
    reads.close();
  });
});
