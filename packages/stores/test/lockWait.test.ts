/**
 * Another process holds the product file's write lock for 8 s (a backup, a
 * migration, a `sqlite3` shell). The servers in this process keep serving:
 * reads answer from the read-only connection at once, the event loop never
 * stalls, and a write waits on timers for its `lockWaitMs`: with 12 s it runs
 * after the release, with 1 s it answers store_unavailable and writes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallResult, Connection } from '@gatehousejs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../../../test/childBundle.js';
import { openDatabase } from '../src/index.js';
import { startChild } from './fixtures/childProcess.js';
import { type LockWaitServer, openLockWaitServer } from './fixtures/lockWaitServer.js';
import { watchLoop } from './fixtures/loopWatch.js';
import { pause } from './fixtures/timing.js';

const HOLD_MS = 8_000;

const connection: Connection<'notes.read' | 'notes.write'> = {
  connectionId: 'conn_1',
  tenantId: 't1',
  creatorId: 'p1',
  clientName: 'lock test',
  channel: 'mcp',
  rights: new Set(['notes.read', 'notes.write'] as const),
};

/** A call's result and when it settled, in ms after the lock was taken. */
interface Timed {
  readonly result: CallResult;
  readonly tookMs: number;
  readonly settledAtMs: number;
}

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-lockwait-'));
const file = join(dir, 'product.db');
let patient: LockWaitServer;
let impatient: LockWaitServer;
const seen = {
  lockedAt: 0,
  releasedAtMs: 0,
  longestGapMs: 0,
  ticks: 0,
  reads: [] as Timed[],
  patientWrite: undefined as Timed | undefined,
  impatientWrite: undefined as Timed | undefined,
};

beforeAll(async () => {
  const script = bundleChild(
    join(dirname(fileURLToPath(import.meta.url)), 'fixtures/lockHolder.ts'),
    join(dir, 'lockHolder.cjs'),
  );
  patient = openLockWaitServer(file, 12_000);
  impatient = openLockWaitServer(file, 1_000);
  patient.db.exec("INSERT INTO notes (text) VALUES ('seeded')");

  const child = startChild<{ phase: string; at: number }>(script, [file, String(HOLD_MS)]);
  seen.lockedAt = (await child.firstLine).at;
  const since = () => Date.now() - seen.lockedAt;
  const timed = async (call: Promise<CallResult>): Promise<Timed> => {
    const start = Date.now();
    const result = await call;
    return { result, tookMs: Date.now() - start, settledAtMs: since() };
  };
  const loop = watchLoop();
  const patientWrite = timed(patient.server.callTool(connection, 'add_note', { text: 'after the lock' }));
  const impatientWrite = timed(impatient.server.callTool(connection, 'add_note', { text: 'never' }));
  seen.reads.push(await timed(patient.server.callTool(connection, 'find_notes', {})));
  await pause(3_000); // the impatient write has given up; the patient one still waits
  seen.reads.push(await timed(patient.server.callTool(connection, 'find_notes', {})));
  seen.reads.push(await timed(impatient.server.callTool(connection, 'find_notes', {})));
  await child.exited;
  seen.releasedAtMs = since();
  seen.patientWrite = await patientWrite;
  seen.impatientWrite = await impatientWrite;
  seen.ticks = loop.ticks();
  seen.longestGapMs = loop.stop();
}, 30_000);

afterAll(() => {
  patient?.close();
  impatient?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What is on the file, read through a fresh connection. */
const onFile = () => {
  const db = openDatabase(file, { readonly: true });
  try {
    const count = (sql: string) => db.prepare<[], { n: number }>(sql).get()?.n;
    return {
      notes: db.prepare<[], { text: string }>('SELECT text FROM notes ORDER BY id').all(),
      audit: count("SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'add_note'"),
      replay: count('SELECT count(*) AS n FROM gatehouse_replay'),
    };
  } finally {
    db.close();
  }
};

describe('a SQLite server while another process holds the write lock for 8 s', () => {
  it('answers read calls with their normal result in well under 2 s', () => {
    expect(seen.reads).toHaveLength(3);
    for (const read of seen.reads) {
      expect(read.tookMs).toBeLessThan(2_000);
      expect(read.settledAtMs).toBeLessThan(HOLD_MS);
      expect(read.result.structuredContent).toEqual({
        status: 'ok',
        result: { notes: [{ id: 1, text: 'seeded' }] },
      });
    }
  });

  it('keeps the event loop ticking every 10 ms, with no gap over 250 ms', () => {
    expect(seen.releasedAtMs).toBeGreaterThanOrEqual(HOLD_MS);
    expect(seen.ticks).toBeGreaterThan(HOLD_MS / 10 / 4);
    expect(seen.longestGapMs).toBeLessThan(250);
  });

  it('runs a write with lockWaitMs 12 s once the lock is released, and keeps its row', () => {
    const write = seen.patientWrite;
    expect(write?.result.structuredContent).toMatchObject({
      status: 'ok',
      result: { id: 2, text: 'after the lock' },
    });
    expect(write?.settledAtMs).toBeGreaterThanOrEqual(HOLD_MS - 100);
    expect(onFile().notes).toEqual([{ text: 'seeded' }, { text: 'after the lock' }]);
  });

  it('answers a write with lockWaitMs 1 s store_unavailable after its deadline and writes nothing of it', () => {
    const write = seen.impatientWrite;
    expect(write?.result.isError).toBe(true);
    expect(write?.result.structuredContent).toMatchObject({ error: { code: 'store_unavailable' } });
    expect(write?.tookMs).toBeGreaterThanOrEqual(950);
    expect(write?.settledAtMs).toBeLessThan(3_000);
    const after = onFile();
    expect(after.notes.map((n) => n.text)).not.toContain('never');
    // One audit row and one replay record: the patient write's, none of the impatient one.
    expect(after.audit).toBe(1);
    expect(after.replay).toBe(1);
  });
});
