import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStores } from '../src/index.js';
import { buildChild, buildTransactionChild, runChild, startChild } from './fixtures/childProcess.js';
import { credential, pendingAction } from './fixtures/records.js';
import { type TempDatabase, tempDatabase } from './fixtures/tempDatabase.js';
import { type Counts, openWriteServer } from './fixtures/writeServer.js';

let buildDir = '';
let script = '';
let serverScript = '';

beforeAll(() => {
  buildDir = mkdtempSync(join(tmpdir(), 'gatehouse-child-'));
  script = buildChild(buildDir);
  serverScript = buildTransactionChild(buildDir);
});

afterAll(() => {
  rmSync(buildDir, { recursive: true, force: true });
});

const withDatabase = async (fn: (temp: TempDatabase) => Promise<void>): Promise<void> => {
  const temp = tempDatabase();
  try {
    await fn(temp);
  } finally {
    temp.dispose();
  }
};

const KEYS = 300;

/**
 * Starts `processes` children together, each walking the same `keys` in the
 * same order, so their read-then-write windows overlap on every key; returns
 * the total of wins they report.
 */
const race = async (temp: TempDatabase, mode: string, processes: number, keys: number): Promise<number> => {
  const startAt = String(Date.now() + 1_000);
  const exits = await Promise.all(
    Array.from({ length: processes }, () => runChild(script, [mode, temp.file, String(keys), startAt])),
  );
  for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0 });
  return exits.reduce((sum, exit) => sum + (JSON.parse(exit.stdout) as { won: number }).won, 0);
};

describe('createSqliteStores across processes', () => {
  it('reads what another process wrote, after that process exited', async () => {
    await withDatabase(async (temp) => {
      const exit = await runChild(script, ['write', temp.file]);
      expect(exit, exit.stderr).toMatchObject({ code: 0, stdout: '{"ok":true}\n' });
      const stores = createSqliteStores(temp.open());
      expect(stores.replay.beginSync('fp-1', 'x', 1_000, 10)).toMatchObject({
        state: 'completed',
        result: { id: 'b1' },
      });
      expect(stores.replay.beginSync('fp-2', 'x', 1_000, 10)).toEqual({
        state: 'running',
        argumentsDigest: 'd2',
      });
      expect(stores.pendingActions.findByTokenHashSync('h1')?.status).toBe('pending');
      expect(stores.pendingActions.transitionSync('pa1', ['pending'], 'claimed')).toBe(true);
      expect(stores.switches.getSync('global')).toBe(true);
      expect(stores.credentials.findByTokenHashSync('th1')?.id).toBe('cr1');
    });
  });

  it('loses the write and its replay record together when the process dies before commit', async () => {
    await withDatabase(async (temp) => {
      temp.open().exec('CREATE TABLE bookings (id TEXT PRIMARY KEY)');
      const exit = await runChild(script, ['crash-before-commit', temp.file]);
      expect(exit.signal).toBe('SIGKILL');
      const db = temp.open();
      expect(db.prepare('SELECT count(*) AS n FROM bookings').get()).toEqual({ n: 0 });
      const stores = createSqliteStores(db);
      expect(stores.replay.beginSync('fp-b1', 'd', 5_000, 1)).toEqual({
        state: 'running',
        argumentsDigest: 'd',
      });
      expect(stores.replay.beginSync('fp-b1', 'd', 5_000, 5_000).state).toBe('started');
    });
  });

  it('keeps the write and its replay record together when the process dies after commit', async () => {
    await withDatabase(async (temp) => {
      temp.open().exec('CREATE TABLE bookings (id TEXT PRIMARY KEY)');
      const exit = await runChild(script, ['crash-after-commit', temp.file]);
      expect(exit.signal).toBe('SIGKILL');
      const db = temp.open();
      expect(db.prepare('SELECT id FROM bookings').all()).toEqual([{ id: 'b1' }]);
      expect(createSqliteStores(db).replay.beginSync('fp-b1', 'd', 5_000, 1)).toMatchObject({
        state: 'completed',
        result: { id: 'b1' },
      });
    });
  });

  it('lets exactly one of four racing processes start each of 300 keys', async () => {
    await withDatabase(async (temp) => {
      expect(await race(temp, 'race-begin', 4, KEYS)).toBe(KEYS);
    });
  });

  it('lets exactly one of four racing processes claim each of 300 pending actions', async () => {
    await withDatabase(async (temp) => {
      const { pendingActions } = createSqliteStores(temp.open());
      for (let i = 0; i < KEYS; i++) pendingActions.insertSync(pendingAction(`pa${i}`));
      expect(await race(temp, 'race-claim', 4, KEYS)).toBe(KEYS);
    });
  });

  it('grants exactly the capacity of each of 300 buckets to four racing processes', async () => {
    await withDatabase(async (temp) => {
      expect(await race(temp, 'race-take', 4, KEYS)).toBe(2 * KEYS);
    });
  });

  it('lets exactly one of four racing processes revoke each of 300 credentials', async () => {
    await withDatabase(async (temp) => {
      const { credentials } = createSqliteStores(temp.open());
      for (let i = 0; i < KEYS; i++) credentials.insertSync(credential(`cr${i}`));
      expect(await race(temp, 'race-revoke', 4, KEYS)).toBe(KEYS);
    });
  });

  it('gives exactly one of four racing processes the unset previous value of each of 300 switches', async () => {
    await withDatabase(async (temp) => {
      expect(await race(temp, 'race-switch', 4, KEYS)).toBe(KEYS);
    });
  });
});

const NOTHING_BUT_THE_CLAIM: Counts = { visits: 0, replay: 1, audit: 0, mails: 0 };
const ONCE: Counts = { visits: 1, replay: 1, audit: 1, mails: 0 };
const SLOT = { slot: '2030-05-04T09:00' };

interface ServerLine {
  readonly phase: string;
  readonly inTransaction?: boolean;
  readonly visits: number;
  readonly replay: number;
  readonly audit: number;
}

describe('sqliteUnitOfWork across processes', () => {
  it('keeps nothing of a call whose process is killed between its last write and COMMIT, and runs the retry once after the lease', async () => {
    const temp = tempDatabase();
    const file = join(temp.dir, 'product.db');
    try {
      const child = startChild<ServerLine>(serverScript, ['pause', file]);
      expect(await child.firstLine).toEqual({ phase: 'before-commit', inTransaction: true, ...ONCE });
      child.kill();
      expect(await child.exited).toBe('SIGKILL');
      // The replay claim committed on its own before the unit of work: a re-send
      // inside its lease is told the call is still running, and runs nothing.
      const restarted = openWriteServer(file, { replay: { waitMs: 0 } });
      expect(restarted.counts()).toEqual(NOTHING_BUT_THE_CLAIM);
      expect(restarted.db.prepare('SELECT state FROM gatehouse_replay').all()).toEqual([
        { state: 'running' },
      ]);
      const early = await restarted.server.callTool(restarted.connection, 'book_visit', SLOT);
      expect(early.structuredContent).toMatchObject({ error: { code: 'still_running' } });
      expect(restarted.counts()).toEqual(NOTHING_BUT_THE_CLAIM);
      restarted.db.close();
      // Once the lease (60 s by default) has run out, the retry runs, once.
      const later = openWriteServer(file, { clock: () => new Date(Date.now() + 60_000) });
      const retried = await later.server.callTool(later.connection, 'book_visit', SLOT);
      expect(retried.structuredContent).toMatchObject({ status: 'ok' });
      expect(retried.structuredContent.replayed).toBeUndefined();
      const again = await later.server.callTool(later.connection, 'book_visit', SLOT);
      expect(again.structuredContent).toMatchObject({ replayed: true });
      expect(later.counts()).toEqual(ONCE);
      later.db.close();
    } finally {
      temp.dispose();
    }
  });

  it('keeps the write, its audit row and its replay record of a process that commits', async () => {
    const temp = tempDatabase();
    const file = join(temp.dir, 'product.db');
    try {
      const child = startChild<ServerLine>(serverScript, ['commit', file]);
      expect(await child.firstLine).toMatchObject({ phase: 'done', ...ONCE });
      expect(await child.exited).toBe(0);
      const app = openWriteServer(file);
      expect(app.counts()).toEqual(ONCE);
      const again = await app.server.callTool(app.connection, 'book_visit', SLOT);
      expect(again.structuredContent).toMatchObject({ replayed: true });
      expect(app.counts()).toEqual(ONCE);
      app.db.close();
    } finally {
      temp.dispose();
    }
  });
});
