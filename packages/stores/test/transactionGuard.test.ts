import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigurationError, defineGuard } from '@gatehousejs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, CHILD_ENV } from '../../../test/childBundle.js';
import { createWriteLock, openDatabase, transactionGuard } from '../src/index.js';
import { tempDatabase } from './fixtures/tempDatabase.js';
import { type Counts, openWriteServer, type WriteServer } from './fixtures/writeServer.js';

const here = dirname(fileURLToPath(import.meta.url));
let buildDir = '';
let script = '';

beforeAll(() => {
  buildDir = mkdtempSync(join(tmpdir(), 'gatehouse-tx-child-'));
  script = join(buildDir, 'transactionChild.cjs');
  bundleChild(join(here, 'fixtures/transactionChild.ts'), script);
});

afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

/** Runs `fn` with a write server on a fresh file; closes and deletes it afterwards. */
async function withServer(fn: (app: WriteServer, file: string) => Promise<void>): Promise<void> {
  const temp = tempDatabase();
  const file = join(temp.dir, 'product.db');
  const app = openWriteServer(file);
  try {
    await fn(app, file);
  } finally {
    if (app.db.open) app.db.close();
    temp.dispose();
  }
}

const NOTHING: Counts = { visits: 0, replay: 0, audit: 0, mails: 0 };
const ONCE: Counts = { visits: 1, replay: 1, audit: 1, mails: 0 };

interface ChildLine {
  readonly phase: string;
  readonly inTransaction?: boolean;
  readonly visits: number;
  readonly replay: number;
  readonly audit: number;
}

/** Starts the child server; resolves with its first line and a way to kill it and wait for the exit. */
function startChild(mode: 'pause' | 'commit', file: string) {
  const child = spawn(process.execPath, [script, mode, file], {
    env: { ...process.env, ...CHILD_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('close', (code, signal) => resolve(signal ?? code)),
  );
  const firstLine = new Promise<ChildLine>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(JSON.parse(line) as ChildLine);
    });
    void exited.then(() => reject(new Error(`the child exited without a line: ${stderr}`)));
  });
  return { firstLine, exited, kill: () => child.kill('SIGKILL') };
}

describe('transactionGuard', () => {
  it('commits the write, its audit row and its replay record together, and replays a re-sent call', async () => {
    await withServer(async (app, file) => {
      const first = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' }, { requestId: 1 });
      expect(first.structuredContent).toMatchObject({ status: 'ok', result: { visit: { id: 'v_s1' } } });
      const again = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' }, { requestId: 2 });
      expect(again.structuredContent).toMatchObject({ status: 'ok', replayed: true });
      expect(app.counts()).toEqual(ONCE);
      const other = openDatabase(file);
      expect(other.prepare('SELECT count(*) AS n FROM visits').get()).toEqual({ n: 1 });
      other.close();
      expect(app.db.inTransaction).toBe(false);
    });
  });

  it('rolls back the write and frees the replay key when the service refuses after writing', async () => {
    await withServer(async (app) => {
      const refused = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'refuse' });
      expect(refused.structuredContent).toMatchObject({ error: { code: 'invalid_arguments' } });
      expect(app.counts()).toEqual(NOTHING);
      const thrown = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'throw' });
      expect(thrown.structuredContent).toMatchObject({ error: { code: 'internal_error' } });
      expect(app.counts()).toEqual(NOTHING);
      const retried = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      expect(retried.structuredContent).toMatchObject({ status: 'ok' });
      expect(app.counts()).toEqual(ONCE);
    });
  });

  it('rolls back a write that reached an outward port and records the violation once, after the rollback', async () => {
    await withServer(async (app) => {
      const reply = await app.server.callTool(app.connection, 'book_visit', { slot: 's1', fail: 'mail' });
      expect(reply.structuredContent).toMatchObject({ error: { code: 'effect_violation' } });
      expect(app.counts()).toMatchObject({ visits: 0, replay: 0, mails: 0, audit: 1 });
      const [row] = app.stores.audit.listSync({ limit: 10 });
      expect(row).toMatchObject({ action: 'book_visit', outcome: 'violation', connectionId: 'conn_1' });
      expect(row?.note).toContain('rolled back');
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
    });
  });

  it('lets a host write that shares the lock wait until an open MCP transaction has committed', async () => {
    const temp = tempDatabase();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold = defineGuard({
      name: 'hold',
      effects: ['write'],
      handle: async (_c, next) => held.then(next),
    });
    const app = openWriteServer(join(temp.dir, 'product.db'), [hold]);
    try {
      const call = app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(app.db.inTransaction).toBe(true);
      const seen: boolean[] = [];
      const hostWrite = app.lock.run(() => seen.push(app.db.inTransaction));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen).toEqual([]);
      release();
      await Promise.all([call, hostWrite]);
      expect(seen).toEqual([false]);
      expect(app.counts()).toEqual(ONCE);
    } finally {
      app.db.close();
      temp.dispose();
    }
  });

  it('refuses with store_unavailable, running nothing, while another connection holds the write lock', async () => {
    await withServer(async (app, file) => {
      const other = openDatabase(file);
      other.exec('BEGIN IMMEDIATE');
      const reply = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      other.exec('ROLLBACK');
      other.close();
      expect(reply.structuredContent).toMatchObject({
        error: { code: 'store_unavailable', message: 'The database is busy. Nothing ran.' },
      });
      expect(app.counts()).toEqual(NOTHING);
    });
  });

  it('refuses anything but an open better-sqlite3 handle', () => {
    expect(() => transactionGuard({} as never)).toThrow(ConfigurationError);
    const temp = tempDatabase();
    const db = temp.open();
    db.close();
    expect(() => transactionGuard(db)).toThrow(/open better-sqlite3/);
    expect(() => transactionGuard(temp.open(), { lock: {} as never })).toThrow(/lock/);
    temp.dispose();
  });

  it('keeps nothing of a call whose process is killed between its last write and COMMIT, and runs the retry once', async () => {
    const temp = tempDatabase();
    const file = join(temp.dir, 'product.db');
    try {
      const child = startChild('pause', file);
      const line = await child.firstLine;
      expect(line).toEqual({ phase: 'before-commit', inTransaction: true, ...ONCE });
      child.kill();
      expect(await child.exited).toBe('SIGKILL');
      const app = openWriteServer(file);
      expect(app.counts()).toEqual(NOTHING);
      const retried = await app.server.callTool(app.connection, 'book_visit', { slot: '2030-05-04T09:00' });
      expect(retried.structuredContent).toMatchObject({ status: 'ok' });
      expect(retried.structuredContent.replayed).toBeUndefined();
      const again = await app.server.callTool(app.connection, 'book_visit', { slot: '2030-05-04T09:00' });
      expect(again.structuredContent).toMatchObject({ replayed: true });
      expect(app.counts()).toEqual(ONCE);
      app.db.close();
    } finally {
      temp.dispose();
    }
  });

  it('keeps the write, its audit row and its replay record of a process that commits', async () => {
    const temp = tempDatabase();
    const file = join(temp.dir, 'product.db');
    try {
      const child = startChild('commit', file);
      expect(await child.firstLine).toMatchObject({ phase: 'done', ...ONCE });
      expect(await child.exited).toBe(0);
      const app = openWriteServer(file);
      expect(app.counts()).toEqual(ONCE);
      const again = await app.server.callTool(app.connection, 'book_visit', { slot: '2030-05-04T09:00' });
      expect(again.structuredContent).toMatchObject({ replayed: true });
      app.db.close();
    } finally {
      temp.dispose();
    }
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
