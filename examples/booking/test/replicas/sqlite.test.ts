/**
 * Three booking server processes on one SQLite file on one machine: what a
 * team may try before PostgreSQL. Exactly-once holds (the replay claim and
 * every unit of work take the file's write lock), the switches and the
 * write buckets are shared through the file; read buckets are per process
 * (docs/replicas.md). While another process holds the write lock for 8 s,
 * reads keep answering at once and no event loop stalls.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_ENV } from '../../../../test/childBundle.js';
import { createBookingApp } from '../../src/app.js';
import { codeOf, structured } from '../fixtures/raw.js';
import { type Cluster, removeBundles, startCluster } from './cluster.js';
import {
  bookingIdOf,
  type Count,
  clientsFor,
  createArgs,
  exactlyOnce,
  REPLICA_RATE_LIMITS,
  startsAtMs,
} from './scenarios.js';

describe('three replicas on one SQLite file', () => {
  let dir = '';
  let file = '';
  let cluster: Cluster;
  let count: Count;
  let client: ReturnType<typeof clientsFor>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-sqlite-replicas-'));
    file = join(dir, 'booking.db');
    cluster = await startCluster({
      count: 3,
      store: { engine: 'sqlite', file },
      env: {
        BOOKING_RATE_LIMITS: REPLICA_RATE_LIMITS,
        // As on PostgreSQL: a call refused when the file was busy at BEGIN keeps its claim
        // (its release needs the same lock) until the lease ends; the clients retry for ~30 s,
        // so the lease must end well within that, and takeovers are fenced (exactly once).
        BOOKING_REPLAY_LEASE_MS: '7000',
      },
    });
    count = async (sql, ...params) => {
      const db = new Database(file, { readonly: true });
      try {
        const row = db.prepare(sql.replace(/\$\d+/g, '?')).get(...params) as { n: number };
        return row.n;
      } finally {
        db.close();
      }
    };
    client = clientsFor(cluster, await cluster.mint());
  }, 120_000);

  afterAll(async () => {
    await cluster?.close();
    removeBundles();
    rmSync(dir, { recursive: true, force: true });
  });

  const product = () => createBookingApp({ file, seed: false, logger: pino({ level: 'silent' }) });
  exactlyOnce(() => ({ cluster, client, count, product }));

  it('keeps reads answering while another process holds the write lock for 8 s', async () => {
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]);
         db.exec('BEGIN IMMEDIATE'); console.log('locked');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 8000);`,
        file,
      ],
      { env: { ...process.env, ...CHILD_ENV }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const released = new Promise<void>((resolve) => holder.once('close', () => resolve()));
    await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
    const lockedAt = Date.now();
    // A write waits for the lock (off the event loop) while reads and health checks answer.
    const write = client(0).callTool('create_booking', createArgs(160, '09:00'), { id: 499 });
    for (let i = 0; i < 6; i++) {
      const started = Date.now();
      const reply = await client(i).callTool('find_bookings', {}, { id: 500 + i });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(codeOf(reply)).toBeUndefined();
      expect(structured(reply).result).toBeDefined();
      const health = Date.now();
      const alive = await fetch(new URL('/healthz', cluster.at(i).url));
      expect(alive.status).toBe(200);
      expect(Date.now() - health).toBeLessThan(500);
    }
    expect(Date.now() - lockedAt).toBeLessThan(8_000);
    await sleep(Math.max(0, 8_500 - (Date.now() - lockedAt)));
    await released;
    const written = await write;
    const booked = bookingIdOf(written) !== undefined;
    if (!booked) expect(codeOf(written)).toBe('store_unavailable');
    const start = startsAtMs(160, '09:00');
    expect(await count('SELECT count(*) AS n FROM bookings WHERE starts_at = $1', start)).toBe(
      booked ? 1 : 0,
    );
  }, 30_000);
});
