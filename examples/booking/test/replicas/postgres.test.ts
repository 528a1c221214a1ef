/**
 * Three booking server processes on one PostgreSQL database, the test
 * spreading requests over them (I10, I9, I6, I7 across replicas), and the
 * failures a fleet meets: a replica killed under write load, the database
 * cut away and restored, a replica stopped with SIGTERM under load.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpReply, RawHttpClient } from '@gatehousejs/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../../../packages/stores/test/fixtures/postgres.js';
import { createBookingApp } from '../../src/app.js';
import { codeOf, rawClient, structured } from '../fixtures/raw.js';
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

const available = await postgresAvailable();

describe.skipIf(!available)('three replicas on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let cluster: Cluster;
  let count: Count;
  let client: ReturnType<typeof clientsFor>;
  let token = '';
  const clientFor = (url: URL) => rawClient(url, token);

  beforeAll(async () => {
    database = await createTestDatabase();
    cluster = await startCluster({
      count: 3,
      store: { engine: 'postgres', url: database.url },
      env: {
        BOOKING_RATE_LIMITS: REPLICA_RATE_LIMITS,
        BOOKING_REPLAY_LEASE_MS: '7000',
        // A load balancer's grace: the replica keeps accepting while readiness fails.
        SHUTDOWN_DRAIN_DELAY_MS: '2000',
        SHUTDOWN_DEADLINE_MS: '30000',
      },
    });
    count = async (sql, ...params) => {
      const { rows } = await database.pool.query<{ n: string | number }>(sql, params);
      return Number(rows[0]?.n ?? 0);
    };
    token = await cluster.mint();
    client = clientsFor(cluster, token);
  }, 120_000);

  afterAll(async () => {
    await cluster?.close();
    await database?.drop();
    removeBundles();
  });

  const product = () =>
    createBookingApp({ databaseUrl: database.url, seed: false, logger: pino({ level: 'silent' }) });
  exactlyOnce(() => ({ cluster, client, count, product }));

  it('keeps every acknowledged write when a replica is killed under load; retries create nothing twice', async () => {
    const victim = cluster.replicas[0]!;
    const calls = Array.from({ length: 150 }, (_, i) => ({
      args: {
        ...createArgs(
          120 + Math.floor(i / 20),
          `${String(8 + (i % 10)).padStart(2, '0')}:${i % 20 < 10 ? '00' : '30'}`,
        ),
        idempotency_key: `replica-kill-${i}`,
      },
      i,
    }));
    // Every replica takes a share of the load, the victim included.
    const first = calls.map(({ args, i }) =>
      client(i)
        .callTool('create_booking', args, { id: i + 1 })
        .catch(() => undefined),
    );
    await sleep(30);
    await victim.stop('SIGKILL');
    const answers = await Promise.all(first);
    const acknowledged = answers.map((reply) => (reply ? bookingIdOf(reply) : undefined));
    // Retry everything not acknowledged on the survivors, as a client would, until each answers.
    const survivors = cluster.replicas.filter((replica) => replica !== victim);
    const final = [...acknowledged];
    const lastCodes: (string | number | undefined)[] = answers.map((reply) =>
      reply ? codeOf(reply) : 'no answer',
    );
    for (let attempt = 0; attempt < 40 && final.some((id) => id === undefined); attempt++) {
      await Promise.all(
        calls.map(async ({ args, i }) => {
          if (final[i] !== undefined) return;
          const reply = await clientFor(survivors[i % survivors.length]!.url).callTool(
            'create_booking',
            args,
            {
              id: 1000 + i,
            },
          );
          final[i] = bookingIdOf(reply);
          lastCodes[i] = codeOf(reply) ?? reply.status;
        }),
      );
      if (final.some((id) => id === undefined)) await sleep(250);
    }
    expect(lastCodes.filter((code, i) => final[i] === undefined && code !== undefined)).toEqual([]);
    expect(final.filter((id) => id === undefined)).toEqual([]);
    for (const [i, id] of acknowledged.entries()) if (id) expect(final[i]).toBe(id);
    const ids = final as string[];
    expect(new Set(ids).size).toBe(calls.length);
    const { rows } = await database.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM bookings WHERE id = ANY($1)',
      [ids],
    );
    expect(Number(rows[0]?.n)).toBe(calls.length);
    const total = await count(
      'SELECT count(*) AS n FROM bookings WHERE starts_at >= $1 AND starts_at < $2',
      startsAtMs(120, '00:00'),
      startsAtMs(130, '00:00'),
    );
    expect(total).toBe(calls.length);
    await cluster.add();
  }, 120_000);

  it('answers 503 while the database is cut, writes nothing half, keeps confirm tokens, and recovers', async () => {
    const created = await client(0).callTool('create_booking', createArgs(140, '09:00'), { id: 1 });
    const bookingId = bookingIdOf(created);
    const preview = structured(
      await client(1).callTool('notify_customer', { booking_id: bookingId }, { id: 2 }),
    );
    expect(preview.status).toBe('PREVIEW');
    const proxy = cluster.proxy!;
    proxy.cut('refuse');
    const during: HttpReply[] = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        client(i).callTool(
          'create_booking',
          createArgs(141, `${String(8 + (i % 10)).padStart(2, '0')}:00`, 4000 + i),
          {
            id: 10 + i,
          },
        ),
      ),
    );
    const confirmDuring = await client(2).callTool(
      'confirm_action',
      { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary },
      { id: 99 },
    );
    for (const reply of [...during, confirmDuring]) {
      const unavailable = reply.status === 503 || codeOf(reply) === 'store_unavailable';
      expect(unavailable, `${reply.status} ${reply.text.slice(0, 200)}`).toBe(true);
      if (reply.status === 503) expect(reply.headers['retry-after']).toBeDefined();
    }
    proxy.restore();
    // The replicas recover by themselves: poll until a write goes through again.
    let recovered: HttpReply | undefined;
    for (let attempt = 0; attempt < 60 && !bookingIdOf(recovered ?? ({} as HttpReply)); attempt++) {
      recovered = await client(attempt).callTool('create_booking', createArgs(142, '09:00'), {
        id: 200 + attempt,
      });
      if (!bookingIdOf(recovered)) await sleep(250);
    }
    expect(bookingIdOf(recovered!)).toBeDefined();
    const from = startsAtMs(141, '00:00');
    const to = startsAtMs(142, '00:00');
    expect(
      await count('SELECT count(*) AS n FROM bookings WHERE starts_at >= $1 AND starts_at < $2', from, to),
    ).toBe(0);
    const confirmed = await client(0).callTool(
      'confirm_action',
      { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary },
      { id: 300 },
    );
    expect(codeOf(confirmed)).toBeUndefined();
    expect(await count('SELECT count(*) AS n FROM outbound_messages WHERE booking_id = $1', bookingId)).toBe(
      1,
    );
  }, 120_000);

  it('answers every call in flight when a replica gets SIGTERM', async () => {
    const replica = cluster.replicas.at(-1)!;
    const stopping = clientsFor({ ...cluster, at: () => replica }, token)(0);
    const survivor = clientsFor({ ...cluster, at: () => cluster.replicas[0]! }, token)(0);
    // As a load balancer does: a call whose connection failed before any answer goes to another replica.
    const balanced = async (send: (client: RawHttpClient) => Promise<HttpReply>) => {
      try {
        return { reply: await send(stopping), rerouted: false };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
        return { reply: await send(survivor), rerouted: true };
      }
    };
    const calls = Array.from({ length: 40 }, (_, i) =>
      balanced((c) =>
        i % 2 === 0
          ? c.callTool('find_bookings', {}, { id: i + 1 })
          : c.callTool(
              'create_booking',
              createArgs(150, `${String(8 + Math.floor(i / 4)).padStart(2, '0')}:${i % 4 < 2 ? '00' : '30'}`),
              { id: i + 1 },
            ),
      ),
    );
    await sleep(20);
    replica.child.kill('SIGTERM');
    const answered = await Promise.all(calls);
    const replies = answered.map(({ reply }) => reply);
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
    expect(await replica.exited).toBe(0);
    // The drain answers what the replica took; a reset may only meet a call it never ran
    // (a rerouted create is not a replay of a booking it made), and only a few calls at that.
    const rerouted = answered.filter((call) => call.rerouted);
    expect(rerouted.length).toBeLessThanOrEqual(4);
    for (const { reply } of rerouted) expect(structured(reply).replayed).toBeUndefined();
    const ids = replies.map(bookingIdOf).filter((id): id is string => id !== undefined);
    expect(ids).toHaveLength(20);
    const { rows } = await database.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM bookings WHERE id = ANY($1)',
      [ids],
    );
    expect(Number(rows[0]?.n)).toBe(ids.length);
  }, 60_000);
});
