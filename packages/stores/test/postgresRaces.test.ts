// Races between connections (I10, I9, I7): many calls at once over several
// pools, as replicas sharing one database would make them, and a lease that
// ran out and was taken over by another replica.
import { randomUUID } from 'node:crypto';
import type { PendingAction } from '@gatehousejs/core';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPostgresPool,
  PostgresPendingActionStore,
  PostgresRateBucketStore,
  PostgresReplayStore,
} from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';
import { emptyTables, openPostgresWriteServer } from './fixtures/postgresWriteServer.js';
import { until } from './fixtures/timing.js';

const available = await postgresAvailable();

const REPLICAS = 4;

/** One clock for every replica, moved by hand. */
function handClock() {
  let now = Date.parse('2030-05-04T09:00:00Z');
  return {
    clock: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

/** The one pending action the races fight over. */
const PENDING: PendingAction = {
  id: 'pa1',
  tokenHash: 'h1',
  connectionId: 'c1',
  tenantId: 't1',
  tool: 'mail_visitor',
  arguments: { slot: 's1' },
  argumentsDigest: 'd',
  contentHash: 'c',
  summary: 'mail the visitor of s1',
  createdAt: 0,
  expiresAt: 60_000,
  status: 'pending',
};

describe.skipIf(!available)('PostgreSQL stores under races between connections', () => {
  let database: TestDatabase;
  let pools: pg.Pool[];
  /** `n` calls at once, spread over the replicas' pools. */
  const spread = <T>(n: number, call: (pool: pg.Pool, i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: n }, (_, i) => call(pools[i % REPLICAS]!, i)));

  beforeAll(async () => {
    database = await createTestDatabase();
    await openPostgresWriteServer(database.pool); // migrates and creates the product tables
    pools = Array.from({ length: REPLICAS }, () =>
      createPostgresPool({ connectionString: database.url, max: 8 }),
    );
  });
  beforeEach(() => emptyTables(database.pool));
  afterAll(async () => {
    await Promise.all((pools ?? []).map((pool) => pool.end()));
    await database?.drop();
  });

  it('lets exactly one of 200 concurrent begins on one key, from separate clients, start', async () => {
    const answers = await spread(200, (pool) => new PostgresReplayStore(pool).begin('k', 'd', 60_000, 1_000));
    expect(answers.filter((a) => a.state === 'started')).toHaveLength(1);
    expect(answers.filter((a) => a.state === 'running')).toHaveLength(199);
    const { rows } = await database.pool.query('SELECT state, fence FROM gatehouse_replay');
    const started = answers.find((a) => a.state === 'started');
    expect(rows).toEqual([{ state: 'running', fence: started?.state === 'started' ? started.fence : null }]);
  });

  it('moves a pending action for exactly one of 200 concurrent transitions', async () => {
    await new PostgresPendingActionStore(database.pool).insert(PENDING);
    const moved = await spread(200, (pool) =>
      new PostgresPendingActionStore(pool).transition('pa1', ['pending', 'approved'], 'claimed'),
    );
    expect(moved.filter(Boolean)).toHaveLength(1);
    const { rows } = await database.pool.query('SELECT status FROM gatehouse_pending_actions');
    expect(rows).toEqual([{ status: 'claimed' }]);
  });

  it('claims a pending action for exactly one of 200 concurrent claims from separate clients, then lets exactly one take over its lapsed claim', async () => {
    await new PostgresPendingActionStore(database.pool).insert(PENDING);
    const race = async (expiresAt: number, now: number) => {
      const fences = Array.from({ length: 200 }, () => randomUUID());
      const won = await spread(200, (pool, i) =>
        new PostgresPendingActionStore(pool).claim(
          'pa1',
          ['pending', 'approved'],
          { fence: fences[i]!, expiresAt },
          now,
        ),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      return fences[won.indexOf(true)]!;
    };
    const claimRow = async () =>
      (
        await database.pool.query(
          'SELECT status, claim_fence, claim_expires_at FROM gatehouse_pending_actions',
        )
      ).rows;
    const first = await race(1_000, 0);
    expect(await claimRow()).toEqual([{ status: 'claimed', claim_fence: first, claim_expires_at: 1_000 }]);
    const second = await race(2_000, 1_000); // the first claim lapsed at 1,000: taken over
    expect(await claimRow()).toEqual([{ status: 'claimed', claim_fence: second, claim_expires_at: 2_000 }]);
    const a = new PostgresPendingActionStore(pools[0]!);
    const b = new PostgresPendingActionStore(pools[1]!);
    expect(await a.renewClaim('pa1', first, 9_000)).toBe(false);
    expect(await a.transition('pa1', ['claimed'], 'executed', undefined, { fence: first })).toBe(false);
    expect(await b.renewClaim('pa1', second, 3_000)).toBe(true);
    expect(await b.transition('pa1', ['claimed'], 'executed', undefined, { fence: second })).toBe(true);
    expect(await claimRow()).toEqual([{ status: 'executed', claim_fence: null, claim_expires_at: null }]);
  });

  it('keeps a replay claim renewed on one replica running for another, and refuses a stale renewal after a takeover', async () => {
    const a = new PostgresReplayStore(pools[0]!);
    const b = new PostgresReplayStore(pools[1]!);
    const first = await a.begin('k', 'd', 100, 0);
    if (first.state !== 'started') throw new Error('expected a claim');
    expect(await a.renew('k', first.fence, 100, 90)).toBe(true); // lapses at 190
    expect(await b.begin('k', 'd', 100, 150)).toEqual({ state: 'running', argumentsDigest: 'd' });
    const second = await b.begin('k', 'd', 100, 190);
    if (second.state !== 'started') throw new Error('expected a takeover');
    const renewals = await spread(40, (pool, i) =>
      new PostgresReplayStore(pool).renew('k', i % 2 ? first.fence : second.fence, 1_000, 200),
    );
    expect(renewals.filter(Boolean)).toHaveLength(20);
    expect(renewals.every((renewed, i) => renewed === (i % 2 === 0))).toBe(true);
    const { rows } = await database.pool.query('SELECT fence, expires_at FROM gatehouse_replay');
    expect(rows).toEqual([{ fence: second.fence, expires_at: 1_200 }]);
  });

  it('grants exactly 10 of 30 concurrent takes from a bucket of 10', async () => {
    const limit = { capacity: 10, refillPerSecond: 0.001 };
    const answers = await spread(30, (pool) =>
      new PostgresRateBucketStore(pool).take('c1:write', limit, 5_000),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(10);
    expect(
      answers
        .filter((a) => a.ok)
        .map((a) => (a.ok ? a.remaining : -1))
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const { rows } = await database.pool.query<{ tokens: number }>(
      'SELECT tokens FROM gatehouse_rate_buckets',
    );
    expect(rows).toEqual([{ tokens: 0 }]);
  });

  it('never lets a claim taken over after its lease complete: the store answers false and keeps the newer result', async () => {
    const a = new PostgresReplayStore(pools[0]!);
    const b = new PostgresReplayStore(pools[1]!);
    const first = await a.begin('k', 'd', 100, 0);
    const second = await b.begin('k', 'd', 100, 150);
    if (first.state !== 'started' || second.state !== 'started') throw new Error('expected two claims');
    expect(await a.complete('k', first.fence, 'd', { by: 'a' }, 60_000, 160)).toBe(false);
    await a.release('k', first.fence);
    expect(await b.complete('k', second.fence, 'd', { by: 'b' }, 60_000, 170)).toBe(true);
    expect(await a.begin('k', 'd', 100, 180)).toEqual({
      state: 'completed',
      argumentsDigest: 'd',
      result: { by: 'b' },
    });
  });

  it('rolls back a call whose lease ran out and was taken over by an identical re-send on another replica: one row, one audit row', async () => {
    const time = handClock();
    let holding = false;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const replicaA = await openPostgresWriteServer(pools[0]!, {
      clock: time.clock,
      replay: { leaseMs: 1_000, waitMs: 0 },
      hooks: {
        afterInsert: () => {
          if (holding) return;
          holding = true;
          return held;
        },
      },
    });
    const replicaB = await openPostgresWriteServer(pools[1]!, {
      clock: time.clock,
      replay: { leaseMs: 1_000, waitMs: 0 },
    });
    const first = replicaA.server.callTool(
      replicaA.connection,
      'book_visit',
      { slot: 's1' },
      { requestId: 1 },
    );
    await until(() => holding);
    time.advance(1_000);
    const resent = await replicaB.server.callTool(
      replicaB.connection,
      'book_visit',
      { slot: 's1' },
      { requestId: 2 },
    );
    expect(resent.structuredContent).toMatchObject({ status: 'ok', result: { visit: { slot: 's1' } } });
    expect(resent.structuredContent.replayed).toBeUndefined();
    release();
    const late = await first;
    expect(late.structuredContent).toMatchObject({
      error: { code: 'store_unavailable', message: expect.stringContaining('took over') },
    });
    expect(await replicaA.counts()).toEqual({ visits: 1, replay: 1, audit: 1, mails: 0 });
    const again = await replicaA.server.callTool(replicaA.connection, 'book_visit', { slot: 's1' });
    expect(again.structuredContent).toMatchObject({
      replayed: true,
      result: resent.structuredContent.result,
    });
    expect(await replicaB.counts()).toEqual({ visits: 1, replay: 1, audit: 1, mails: 0 });
  });

  it('writes one row for 40 identical concurrent calls spread over four replicas', async () => {
    const replicas = await Promise.all(pools.map((pool) => openPostgresWriteServer(pool)));
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const app = replicas[i % REPLICAS]!;
        return app.server.callTool(app.connection, 'book_visit', { slot: 's1' }, { requestId: i });
      }),
    );
    expect(replies.filter((r) => r.structuredContent.status === 'ok')).toHaveLength(40);
    expect(replies.filter((r) => r.structuredContent.replayed === true)).toHaveLength(39);
    expect(await replicas[0]!.counts()).toEqual({ visits: 1, replay: 1, audit: 1, mails: 0 });
  });

  it('creates one visit for 20 concurrent creates of one slot over four replicas: the others are told it exists (I11)', async () => {
    const replicas = await Promise.all(pools.map((pool) => openPostgresWriteServer(pool)));
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const app = replicas[i % REPLICAS]!;
        // a different note each time: not a replay, the same business key
        return app.server.callTool(app.connection, 'create_visit', { slot: 's1', note: `n${i}` });
      }),
    );
    expect(replies.filter((r) => r.structuredContent.status === 'ok')).toHaveLength(1);
    const refused = replies.filter((r) => r.structuredContent.status !== 'ok');
    expect(refused).toHaveLength(19);
    for (const reply of refused) {
      expect(reply.structuredContent).toMatchObject({
        error: { code: 'duplicate', details: { existing_id: 'v_1' } },
      });
    }
    const { rows } = await database.pool.query('SELECT id, slot FROM visits');
    expect(rows).toEqual([{ id: 1, slot: 's1' }]);
  });

  it('still creates a separate visit for the same slot with separate: true and a reason', async () => {
    const app = await openPostgresWriteServer(pools[0]!);
    await app.server.callTool(app.connection, 'create_visit', { slot: 's1' });
    const separate = await app.server.callTool(app.connection, 'create_visit', {
      slot: 's1',
      separate: true,
      reason: 'a second technician',
    });
    expect(separate.structuredContent).toMatchObject({ status: 'ok', result: { visit: { id: 'v_2' } } });
    expect((await database.pool.query('SELECT id FROM visits')).rowCount).toBe(2);
  });
});
