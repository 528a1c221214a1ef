/**
 * Three booking server processes on a PostgreSQL cluster the test owns,
 * under a steady mixed load, while the database is stopped and started
 * again, while their connections are terminated, and while a statement
 * waits out `statement_timeout` behind a row lock. No process exits; every
 * answer is a result or a retry answer (`store_unavailable`,
 * `outcome_unknown`, `still_running`, 503 with Retry-After), never
 * `internal_error`; nothing is half written; each replica writes again
 * within seconds of the database answering, without a restart.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startThrowawayPostgres,
  type ThrowawayPostgres,
  throwawayPostgresAvailable,
} from '../../../../test/throwawayPostgres.js';
import { structured } from '../fixtures/raw.js';
import { type Cluster, type Replica, removeBundles, startCluster } from './cluster.js';
import { type Holdings, holdings } from './outageHoldings.js';
import { Fleet, Ledger, OUTAGE_RATE_LIMITS, secondsToWrite, startLoad } from './outageLoad.js';

/** How long after the database answers again each replica must have written. */
const RECOVERY_MS = 10_000;

/** A replica that exited, with the end of what it wrote to stderr. */
interface Exit {
  readonly port: string;
  readonly code: number | null;
  readonly stderr: string;
}

/** The first lines of a crash on stderr: where it was thrown and the error's message and code. */
const headline = (stderr: string): string[] => {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '' && !/"(level|pid|msg)":/.test(line));
  const start = Math.max(
    lines.findIndex((line) => /^node:|Error|error/.test(line)),
    0,
  );
  const code = lines.find((line) => /^\s+code: /.test(line));
  return [...lines.slice(start, start + 4), ...(code ? [code.trim()] : [])];
};

/** A JSON log line of a replica, or undefined for any other line. */
function jsonLine(
  line: string,
): { msg?: string; error_type?: string; code?: string; tool?: string } | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

describe.skipIf(!throwawayPostgresAvailable())('three replicas when PostgreSQL goes away', () => {
  let postgres: ThrowawayPostgres;
  let cluster: Cluster;
  let fleet: Fleet;
  let pool: pg.Pool;
  const exits: Exit[] = [];
  const watched = new Set<Replica>();

  /** Records the exit of every replica not watched yet. */
  const watch = () => {
    for (const replica of cluster.replicas) {
      if (watched.has(replica)) continue;
      watched.add(replica);
      void replica.exited.then((code) => {
        exits.push({ port: replica.url.port, code, stderr: replica.stderr().slice(-4_000) });
      });
    }
  };

  beforeAll(async () => {
    postgres = (await startThrowawayPostgres())!;
    cluster = await startCluster({
      count: 3,
      store: { engine: 'postgres', url: postgres.url },
      direct: true,
      env: { BOOKING_RATE_LIMITS: OUTAGE_RATE_LIMITS, BOOKING_REPLAY_LEASE_MS: '7000' },
    });
    watch();
    fleet = new Fleet(cluster, await cluster.mint());
    pool = new pg.Pool({ connectionString: postgres.url, application_name: 'booking-test', max: 4 });
    pool.on('error', () => undefined);
  }, 120_000);

  afterAll(async () => {
    await cluster?.close();
    await pool?.end().catch(() => undefined);
    await postgres?.dispose();
    removeBundles();
  });

  // A scenario starts with three live replicas and the database up, whatever the one before did.
  beforeEach(async () => {
    await postgres.start();
    while (fleet.live().length < 3) await cluster.add();
    watch();
  }, 60_000);

  let before = 0;
  const marks = new Map<Replica, number>();
  beforeEach(() => {
    before = exits.length;
    for (const replica of cluster.replicas) marks.set(replica, replica.stderr().length);
  });
  afterEach(async () => {
    // Let an exit caused by the scenario's last moments be seen.
    await sleep(200);
  });

  /** The replicas that exited since the scenario began, each with the first lines of its crash. */
  const crashes = () =>
    exits.slice(before).map(({ port, code, stderr }) => ({ port, code, crash: headline(stderr) }));

  /** The error and warning lines the replicas logged since the scenario began, counted by message and error type. */
  const logged = () => {
    const tally: Record<string, number> = {};
    for (const replica of cluster.replicas) {
      for (const line of replica
        .stderr()
        .slice(marks.get(replica) ?? 0)
        .split('\n')) {
        const entry = jsonLine(line);
        if (!entry) continue;
        const key = [entry.msg, entry.tool, entry.code, entry.error_type].filter(Boolean).join(' | ');
        tally[key] = (tally[key] ?? 0) + 1;
      }
    }
    return tally;
  };

  /** The exits since the scenario began (each with its stderr), and the answers that are not allowed. */
  const verdict = (ledger: Ledger) => ({
    exits: crashes(),
    ...ledger.unexpected(),
  });

  /** Prints what a scenario saw, so a failing run can be reported in full. */
  const report = (name: string, ledger: Ledger, held: Holdings, recovery?: Record<string, number | null>) =>
    console.log(
      JSON.stringify(
        {
          scenario: name,
          recovery_seconds: recovery,
          answers: ledger.tally(),
          samples: ledger.samples(),
          exits: crashes(),
          logged: logged(),
          ...held,
          lostBookings: held.lostBookings.length,
          bookingsWithoutOneAudit: held.bookingsWithoutOneAudit.slice(0, 5),
        },
        null,
        2,
      ),
    );

  /** The checks every scenario makes once the load has settled. */
  const expectWhole = (ledger: Ledger, held: Holdings) => {
    const { exits: exited, unexpected, internalErrors } = verdict(ledger);
    expect(exited, 'replicas exited').toEqual([]);
    expect(internalErrors, 'internal_error answers by tool').toEqual({});
    expect(unexpected.slice(0, 10), 'answers that are neither a result nor a retry answer').toEqual([]);
    expect(held.lostBookings, 'acknowledged bookings missing').toEqual([]);
    expect(held.bookingsWithoutOneAudit, 'bookings without exactly one mcp audit row').toEqual([]);
    expect(held.auditWithoutBooking, 'create audit rows without their booking').toBe(0);
    expect(held.doubled, 'starts booked twice').toBe(0);
    expect(held.bookings, 'bookings against acknowledged creates').toBe(held.acknowledged);
    expect(held.ranThoughUnavailable, '"nothing ran" answers whose create had run').toBe(0);
    expect(held.wrongMessages, 'confirmations with a wrong number of messages').toEqual([]);
  };

  it('answers every call while the database stops and starts, then writes again on every replica', async () => {
    const ledger = new Ledger(fleet, 200, 'stop');
    const replicas = fleet.live();
    const load = startLoad(ledger);
    await sleep(1_500);
    await postgres.stop('fast');
    await sleep(2_000);
    await postgres.start();
    const up = Date.now();
    const recovery = await secondsToWrite(ledger, replicas, up, RECOVERY_MS + 5_000);
    await load.stop();
    await ledger.settle();
    const held = await holdings(pool, ledger);
    report('stop and start', ledger, held, recovery);
    expectWhole(ledger, held);
    for (const [port, seconds] of Object.entries(recovery)) {
      expect(seconds ?? Number.POSITIVE_INFINITY, `seconds until replica ${port} wrote again`).toBeLessThan(
        RECOVERY_MS / 1000,
      );
    }
  }, 90_000);

  it('answers every call while their connections are terminated (57P01), then writes again on every replica', async () => {
    const ledger = new Ledger(fleet, 250, 'terminate');
    const replicas = fleet.live();
    const load = startLoad(ledger);
    await sleep(1_000);
    const terminated: number[] = [];
    for (let round = 0; round < 4; round++) {
      terminated.push(await postgres.terminateConnections({ applicationName: 'gatehouse' }));
      await sleep(400);
    }
    const last = Date.now();
    const recovery = await secondsToWrite(ledger, replicas, last, RECOVERY_MS + 5_000);
    await load.stop();
    await ledger.settle();
    const held = await holdings(pool, ledger);
    report(`terminate (${terminated.join(', ')} backends)`, ledger, held, recovery);
    expect(
      terminated.some((n) => n > 0),
      'backends terminated',
    ).toBe(true);
    expectWhole(ledger, held);
    for (const [port, seconds] of Object.entries(recovery)) {
      expect(seconds ?? Number.POSITIVE_INFINITY, `seconds until replica ${port} wrote again`).toBeLessThan(
        RECOVERY_MS / 1000,
      );
    }
  }, 90_000);

  it('answers store_unavailable to a create that waits out statement_timeout behind a row lock, writing nothing', async () => {
    const ledger = new Ledger(fleet, 300, 'timeout', 30);
    const holder = await pool.connect();
    let answers: { kind: string; id: string | undefined }[];
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT id FROM technicians WHERE id = 'te_kim' FOR UPDATE");
      answers = await Promise.all(fleet.live().map((replica) => ledger.create(replica, 'te_kim')));
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
    const texts = ledger.answers.map((a) => `${a.kind}: ${a.text.slice(0, 160)}`);
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM bookings WHERE starts_at >= $1 AND starts_at < $2',
      [ledger.range().from, ledger.range().to],
    );
    const audited = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM gatehouse_audit WHERE action = 'create_booking' AND outcome = 'ok' AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.id = ANY(object_ids))",
    );
    // The lock is gone: the same calls run now, each for the first time (no replay of a hidden write).
    const again = await Promise.all(
      ledger.creates.map((c, i) => ledger.call(fleet.live()[i % 3], 'create_booking', c.args)),
    );
    console.log(
      JSON.stringify(
        { scenario: 'statement_timeout', answers: texts, retried: again.map((a) => a.kind) },
        null,
        2,
      ),
    );
    expect(verdict(ledger).exits, 'replicas exited').toEqual([]);
    expect(answers.map((a) => a.kind)).toEqual(answers.map(() => 'store_unavailable'));
    expect(rows[0]?.n, 'bookings written by timed-out creates').toBe(0);
    expect(audited.rows[0]?.n, 'audit rows without their booking').toBe(0);
    expect(
      again.map((a) => (a.reply && structured(a.reply).replayed === true ? 'replayed' : a.kind)),
    ).toEqual(again.map(() => 'result'));
  }, 60_000);
});
