// What commits on its own beside a unit of work (I9, I10, I7): bookkeeping
// outside a unit never lands in another call's open transaction, and a
// refusal's dead token is never rolled back.
import { join } from 'node:path';
import type { JsonObject } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { tempDatabase } from './fixtures/tempDatabase.js';
import { type Deferred, deferred, pause, tracked, until } from './fixtures/timing.js';
import { openWriteServer, type WriteServer, type WriteServerOptions } from './fixtures/writeServer.js';

const HELD = 'held';

async function withServer(options: WriteServerOptions, fn: (app: WriteServer) => Promise<void>) {
  const temp = tempDatabase();
  const app = openWriteServer(join(temp.dir, 'product.db'), options);
  try {
    await fn(app);
  } finally {
    app.db.close();
    temp.dispose();
  }
}

/** A server whose `book_visit` for slot `held` waits inside its unit of work until the test settles `gate`. */
const holding = (gate: Deferred): WriteServerOptions => ({
  hooks: { afterInsert: (input) => (input.slot === HELD ? gate.promise : undefined) },
});

/** Starts the held call; resolves, with its answer to come, once its unit of work is open (row written, not committed). */
async function openHeldUnit(app: WriteServer) {
  const answer = app.server.callTool(app.connection, 'book_visit', { slot: HELD });
  await until(() => app.db.inTransaction);
  expect(app.db.prepare('SELECT count(*) AS n FROM visits').get()).toEqual({ n: 1 });
  return { answer };
}

/** The tokens left in a rate bucket, as stored. */
const tokens = (app: WriteServer, key: string) =>
  app.db
    .prepare<[string], { tokens: number }>('SELECT tokens FROM gatehouse_rate_buckets WHERE key = ?')
    .get(key)?.tokens;

const status = (app: WriteServer) =>
  app.db.prepare<[], { status: string }>('SELECT status FROM gatehouse_pending_actions').all();

async function preview(app: WriteServer) {
  const reply = await app.server.callTool(app.connection, 'mail_visitor', { slot: 's1' });
  expect(reply.structuredContent).toMatchObject({ status: 'PREVIEW' });
  return reply.structuredContent as JsonObject & { confirm_token: string; confirm_summary: string };
}

describe('bookkeeping beside a unit of work', () => {
  // Before: transactionGuard wrapped confirm_action like any write and rolled
  // its transaction back on a refusal, the dead mark with it, so the token
  // stayed pending and a later confirmation with the right summary sent the mail.
  it('kills a token refused for a wrong summary while another call’s unit is open and rolls back; the token answers confirm_used and nothing is sent', async () => {
    const gate = deferred();
    await withServer(holding(gate), async (app) => {
      const { confirm_token: token, confirm_summary: summary } = await preview(app);
      const held = await openHeldUnit(app);
      const refused = tracked(
        app.server.callTool(app.connection, 'confirm_action', {
          confirm_token: token,
          confirm_summary: 'mail everybody',
        }),
      );
      await pause(20);
      // It waits for the write lock: its bookkeeping never runs inside the open transaction.
      expect(refused.settled()).toBe(false);
      gate.reject(new Error('The held write fails after its row.'));
      expect((await held.answer).structuredContent).toMatchObject({ error: { code: 'internal_error' } });
      expect((await refused.promise).structuredContent).toMatchObject({
        error: { code: 'confirm_summary_mismatch' },
      });
      expect(status(app)).toEqual([{ status: 'failed' }]);
      const reused = await app.server.callTool(app.connection, 'confirm_action', {
        confirm_token: token,
        confirm_summary: summary,
      });
      expect(reused.structuredContent).toMatchObject({ error: { code: 'confirm_used' } });
      expect(app.counts()).toEqual({ visits: 0, replay: 0, audit: 0, mails: 0 });
    });
  });

  it('kills the token of a confirmation whose own unit of work rolls back after the action ran; nothing is sent', async () => {
    let failCommit = true;
    const options: WriteServerOptions = {
      hooks: {
        beforeCommit: () => {
          if (failCommit) throw new Error('The commit of the confirmation fails.');
        },
      },
    };
    await withServer(options, async (app) => {
      const { confirm_token: token, confirm_summary: summary } = await preview(app);
      const failed = await app.server.callTool(app.connection, 'confirm_action', {
        confirm_token: token,
        confirm_summary: summary,
      });
      expect(failed.structuredContent).toMatchObject({ error: { code: 'internal_error' } });
      expect(status(app)).toEqual([{ status: 'failed' }]);
      failCommit = false;
      const reused = await app.server.callTool(app.connection, 'confirm_action', {
        confirm_token: token,
        confirm_summary: summary,
      });
      expect(reused.structuredContent).toMatchObject({ error: { code: 'confirm_used' } });
      expect(app.counts()).toEqual({ visits: 0, replay: 0, audit: 0, mails: 0 });
    });
  });

  // Before: the stores wrote at once on the shared handle, so a take or a
  // claim made while transactionGuard's transaction was open joined it (as a
  // savepoint) and was rolled back with that call.
  it('commits a rate take and a replay claim made while another call’s unit is open, though that unit rolls back', async () => {
    const gate = deferred();
    await withServer(holding(gate), async (app) => {
      const now = Date.now();
      const limit = { capacity: 5, refillPerSecond: 0.001 };
      const held = await openHeldUnit(app);
      const take = tracked(app.stores.rateBuckets.take('conn_2:write', limit, now));
      const claim = tracked(app.stores.replay.begin('conn_2\u0000outside', 'd', 60_000, now));
      await pause(20);
      // Both wait for the write lock: neither ran inside the open transaction.
      expect([take.settled(), claim.settled()]).toEqual([false, false]);
      gate.reject(new Error('The held write fails after its row.'));
      await held.answer;
      expect(await take.promise).toEqual({ ok: true, remaining: 4 });
      expect(await claim.promise).toMatchObject({ state: 'started' });
      expect(app.counts()).toMatchObject({ visits: 0, audit: 0 });
      expect(tokens(app, 'conn_2:write')).toBeCloseTo(4, 3);
      expect(await app.stores.replay.begin('conn_2\u0000outside', 'd', 60_000, now + 1)).toEqual({
        state: 'running',
        argumentsDigest: 'd',
      });
      // The held call's own rate token, taken before its unit, stays taken too.
      expect(tokens(app, 'conn_1:write')).toBeCloseTo(99, 0);
    });
  });

  it('commits another connection’s write queued behind an open unit that rolls back, with its audit row and replay record', async () => {
    const gate = deferred();
    await withServer(holding(gate), async (app) => {
      const held = await openHeldUnit(app);
      const other = { ...app.connection, connectionId: 'conn_2' };
      const queued = tracked(app.server.callTool(other, 'book_visit', { slot: 's2' }));
      await pause(20);
      expect(queued.settled()).toBe(false);
      gate.reject(new Error('The held write fails after its row.'));
      expect((await held.answer).structuredContent).toMatchObject({ error: { code: 'internal_error' } });
      expect((await queued.promise).structuredContent).toMatchObject({ status: 'ok' });
      expect(app.counts()).toEqual({ visits: 1, replay: 1, audit: 1, mails: 0 });
      expect(app.db.prepare('SELECT slot FROM visits').all()).toEqual([{ slot: 's2' }]);
      expect(app.stores.audit.listSync({ limit: 10 }).map((r) => r.connectionId)).toEqual(['conn_2']);
      // Its rate token, asked for while the held unit was open, was not rolled back with it.
      expect(tokens(app, 'conn_2:write')).toBeCloseTo(99, 0);
    });
  });

  // reject_action once ran its whole handler inside its unit of work, so
  // killing another connection's (or an expired) token waited for the write
  // lock its own unit held: the call never answered and every later write on
  // the handle waited behind it. It now opens the action outside the unit.
  it('answers reject_action for another connection’s token, and for an expired one, with the token dead and the write lock free', async () => {
    let now = Date.parse('2030-05-04T09:00:00Z');
    await withServer({ clock: () => new Date(now) }, async (app) => {
      const within = <T>(answer: Promise<T>) =>
        Promise.race([answer, pause(1_000).then(() => 'no answer' as const)]);
      const foreign = await preview(app);
      const other = { ...app.connection, connectionId: 'conn_2' };
      const refused = await within(
        app.server.callTool(other, 'reject_action', { confirm_token: foreign.confirm_token }),
      );
      expect(refused).toMatchObject({ structuredContent: { error: { code: 'confirm_not_found' } } });
      const expired = await preview(app);
      now += 11 * 60_000;
      const late = await within(
        app.server.callTool(app.connection, 'reject_action', { confirm_token: expired.confirm_token }),
      );
      expect(late).toMatchObject({ structuredContent: { error: { code: 'confirm_expired' } } });
      expect(status(app)).toEqual([{ status: 'failed' }, { status: 'failed' }]);
      const write = await within(app.server.callTool(app.connection, 'book_visit', { slot: 's1' }));
      expect(write).toMatchObject({ structuredContent: { status: 'ok' } });
    });
  });
});
