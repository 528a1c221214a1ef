/**
 * One disk sync per acknowledged write, seen from the kernel: a booking
 * server process on a SQLite file runs under `strace -f`, and a batch of
 * `create_booking` calls, one after the other over HTTP, costs at most 1.1
 * `fsync` + `fdatasync` per create. Per create, the rate take and the
 * replay claim append to the write-ahead log on the stores' bookkeeping
 * connection without a sync, and exactly one commit sync (the unit of
 * work's, on the write handle) lies between the claim's write and the
 * response: the sync that makes the booking durable makes the claim durable
 * with it. The rest are checkpoints (the database file, a restarted log's
 * header), one every thousand pages or so. Linux only; needs `strace` (`apt-get install -y strace`).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../../../test/childBundle.js';
import { rawClient, structured } from './fixtures/raw.js';
import { bookingEnv, mintWithEveryRight, untilBanner } from './fixtures/spawnBooking.js';
import { berlin } from './fixtures/testApp.js';

const here = dirname(fileURLToPath(import.meta.url));
const CREATES = 100;
/** A write bucket the batch never empties: the take still runs, one per create. */
const RATE_LIMITS = JSON.stringify({ write: { capacity: 10_000, refillPerSecond: 1_000 } });

/** Why the kernel cannot be traced here, or undefined when it can. */
function straceMissing(): string | undefined {
  if (process.platform !== 'linux') return 'the sync trace runs on Linux only';
  try {
    execFileSync('strace', ['-o', '/dev/null', 'true'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'strace is missing or may not trace here (install it: apt-get install -y strace)';
  }
}

const missing = straceMissing();
if (missing) console.warn(`Skipping the disk sync trace: ${missing}.`);

let dir = '';
let script = '';

beforeAll(() => {
  if (missing) return;
  dir = mkdtempSync(join(tmpdir(), 'booking-syncs-'));
  script = bundleChild(join(here, '../src/main.ts'), join(dir, 'main.cjs'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The server under `strace`, in a process group of its own, so one signal stops both. */
function tracedServer(file: string, trace: string): Promise<{ child: ChildProcess; url: URL }> {
  const syscalls = 'fsync,fdatasync,pwrite64,write,writev';
  const child = spawn(
    'strace',
    ['-f', '-ttt', '-yy', '-e', `trace=${syscalls}`, '-o', trace, process.execPath, script],
    {
      env: bookingEnv(file, { BOOKING_RATE_LIMITS: RATE_LIMITS }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  return untilBanner(child).then(({ url }) => ({ child, url }));
}

/** One traced system call: when, which, on which file or socket. */
interface Call {
  readonly at: number;
  readonly name: string;
  readonly fd: number;
  readonly path: string;
}

function parseTrace(text: string): Call[] {
  const calls: Call[] = [];
  for (const line of text.split('\n')) {
    const match = /^\d+\s+(\d+\.\d+)\s+(\w+)\((\d+)<(.*?)>[,)]/.exec(line);
    if (match)
      calls.push({ at: Number(match[1]), name: match[2] ?? '', fd: Number(match[3]), path: match[4] ?? '' });
  }
  return calls;
}

const isSync = (call: Call) => call.name === 'fsync' || call.name === 'fdatasync';

describe.skipIf(missing !== undefined)('a booking server on SQLite under strace', () => {
  it(`syncs the disk at most 1.1 times per create over ${CREATES} creates, once between each claim's write and its response`, {
    timeout: 120_000,
  }, async () => {
    const file = join(dir, 'booking.db');
    const trace = join(dir, 'strace.txt');
    const { child, url } = await tracedServer(file, trace);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let from = 0;
    let to = 0;
    try {
      const client = rawClient(url, await mintWithEveryRight(file));
      const create = async (day: number) => {
        const reply = await client.callTool('create_booking', {
          customer_id: 'cu_alan',
          starts_at: berlin(20 + Math.floor(day / 8), `${String(8 + (day % 8)).padStart(2, '0')}:00`),
          duration_minutes: 30,
          price: { minor_units: 4500, currency: 'EUR' },
        });
        expect(structured(reply).status, JSON.stringify(reply.result)).toBe('ok');
      };
      for (let i = 0; i < 3; i++) await create(i); // warm: statements prepared, claims paired with the unit
      from = Date.now() / 1000;
      for (let i = 3; i < CREATES + 3; i++) await create(i);
      to = Date.now() / 1000;
    } finally {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    const port = url.port;
    const calls = parseTrace(readFileSync(trace, 'utf8')).filter((c) => c.at >= from && c.at <= to);
    const syncs = calls.filter(isSync);
    const wal = (c: Call) => c.path.endsWith('booking.db-wal');
    // the write handle's log: the one synced at every commit; the bookkeeping connection's: the other one written
    const syncsByFd = new Map<number, number>();
    for (const c of syncs.filter(wal)) syncsByFd.set(c.fd, (syncsByFd.get(c.fd) ?? 0) + 1);
    const [handleFd] = [...syncsByFd].sort((a, b) => b[1] - a[1])[0] ?? [];
    const bookkeepingFds = new Set(
      calls.filter((c) => c.name === 'pwrite64' && wal(c) && c.fd !== handleFd).map((c) => c.fd),
    );
    // per create: the commit syncs (frames written to the handle's log, then synced; a checkpoint syncs
    // the log again with nothing written) after the claim's last write, up to the response's first write
    const perResponse: number[] = [];
    let sinceClaim: number | undefined;
    let framesWritten = false;
    for (const call of calls) {
      if (call.name === 'pwrite64' && bookkeepingFds.has(call.fd)) sinceClaim = 0;
      else if (call.name === 'pwrite64' && call.fd === handleFd) framesWritten = true;
      else if (isSync(call) && call.fd === handleFd) {
        if (framesWritten && sinceClaim !== undefined) sinceClaim++;
        framesWritten = false;
      } else if (call.name.startsWith('write') && call.path.startsWith(`TCP:[127.0.0.1:${port}->`)) {
        if (sinceClaim !== undefined) perResponse.push(sinceClaim);
        sinceClaim = undefined;
      }
    }
    const others = syncs.filter((c) => c.fd !== handleFd).map((c) => `${c.name}(${basename(c.path)})`);
    console.info(
      `fsync+fdatasync per create: ${(syncs.length / CREATES).toFixed(3)} (${syncs.length} over ${CREATES} creates; on other files than the handle's log: ${others.join(', ') || 'none'})`,
    );
    expect(bookkeepingFds.size).toBe(1);
    expect(perResponse).toEqual(Array.from({ length: CREATES }, () => 1));
    expect(syncs.length / CREATES).toBeLessThanOrEqual(1.1);
  });
});
