// Fencing across a lease takeover, end to end (I10). On one SQLite file a
// re-send cannot claim while the first call's unit of work is open (the
// claim needs the write lock the unit holds), so the lease can only run out
// and be taken over while the first call waits for its unit: here a host
// write on replica A holds A's lock past the lease, and the re-send arrives
// on replica B, another handle on the same file.
//
// Before: the replay store had no fencing token and `complete` overwrote
// whatever claim held the key, so the late call committed a second row,
// a second audit row, and its own result over the re-send's.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDatabase } from './fixtures/tempDatabase.js';
import { deferred, pause, tracked, until } from './fixtures/timing.js';
import { openWriteServer, type WriteServer } from './fixtures/writeServer.js';

const LEASE_MS = 1_000;

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

describe('replay fencing with sqliteUnitOfWork', () => {
  it('rolls back a call whose lease ran out and was taken over by an identical re-send: one row, one audit row', async () => {
    const temp = tempDatabase();
    const file = join(temp.dir, 'product.db');
    const time = handClock();
    const hostWrite = deferred();
    let hostWriting = false;
    const replicaA: WriteServer = openWriteServer(file, {
      clock: time.clock,
      replay: { leaseMs: LEASE_MS, waitMs: 0 },
      hooks: {
        // Right after the first call's claim, a host write takes replica A's lock and keeps it.
        beforeUnit: () => {
          if (hostWriting) return;
          hostWriting = true;
          void replicaA.stores.lock.run(() => hostWrite.promise);
        },
      },
    });
    const replicaB = openWriteServer(file, { clock: time.clock, replay: { leaseMs: LEASE_MS, waitMs: 0 } });
    try {
      const first = replicaA.server.callTool(
        replicaA.connection,
        'book_visit',
        { slot: 's1' },
        { requestId: 1 },
      );
      await until(() => hostWriting);
      time.advance(LEASE_MS);
      const resent = await replicaB.server.callTool(
        replicaB.connection,
        'book_visit',
        { slot: 's1' },
        { requestId: 2 },
      );
      expect(resent.structuredContent).toMatchObject({ status: 'ok', result: { visit: { id: 'v_1' } } });
      expect(resent.structuredContent.replayed).toBeUndefined();
      hostWrite.resolve();
      const late = await first;
      expect(late.structuredContent).toMatchObject({
        error: { code: 'store_unavailable', message: expect.stringContaining('took over') },
      });
      expect(replicaA.counts()).toEqual({ visits: 1, replay: 1, audit: 1, mails: 0 });
      expect(replicaA.db.prepare('SELECT id, slot FROM visits').all()).toEqual([{ id: 1, slot: 's1' }]);
      const again = await replicaA.server.callTool(replicaA.connection, 'book_visit', { slot: 's1' });
      expect(again.structuredContent).toMatchObject({ replayed: true, result: { visit: { id: 'v_1' } } });
      expect(replicaA.counts()).toEqual({ visits: 1, replay: 1, audit: 1, mails: 0 });
    } finally {
      replicaA.db.close();
      replicaB.db.close();
      temp.dispose();
    }
  });

  it('answers an identical re-send during a run that outlasts its lease with the first result: the claim waits for the unit', async () => {
    const temp = tempDatabase();
    const time = handClock();
    const gate = deferred();
    let held = false;
    const app = openWriteServer(join(temp.dir, 'product.db'), {
      clock: time.clock,
      replay: { leaseMs: LEASE_MS, waitMs: 5_000 },
      hooks: {
        afterInsert: () => {
          if (held) return;
          held = true;
          return gate.promise;
        },
      },
    });
    try {
      const first = app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      await until(() => app.db.inTransaction);
      time.advance(5 * LEASE_MS);
      const resent = tracked(app.server.callTool(app.connection, 'book_visit', { slot: 's1' }));
      await pause(20);
      expect(resent.settled()).toBe(false);
      gate.resolve();
      expect((await first).structuredContent).toMatchObject({
        status: 'ok',
        result: { visit: { id: 'v_1' } },
      });
      expect((await resent.promise).structuredContent).toMatchObject({
        replayed: true,
        result: { visit: { id: 'v_1' } },
      });
      expect(app.counts()).toEqual({ visits: 1, replay: 1, audit: 1, mails: 0 });
    } finally {
      app.db.close();
      temp.dispose();
    }
  });

  it('cannot renew, nor be taken over, while its own unit holds the write lock past the lease', async () => {
    const temp = tempDatabase();
    const gate = deferred();
    let held = false;
    let committedAt = Number.POSITIVE_INFINITY;
    const renewals: { readonly settledAt: number; readonly held: boolean }[] = [];
    const app = openWriteServer(join(temp.dir, 'product.db'), {
      // a short lease renewed every 100 ms; on SQLite a renewal is a write, so it waits for the lock too
      replay: { leaseMs: 600, renewMs: 100, waitMs: 0 },
      replayStore: (store) => ({
        begin: (...args) => store.begin(...args),
        complete: (...args) => store.complete(...args),
        release: (...args) => store.release(...args),
        holds: (...args) => store.holds(...args),
        renew: async (...args) => {
          const renewed = await store.renew(...args);
          renewals.push({ settledAt: Date.now(), held: renewed });
          return renewed;
        },
      }),
      hooks: {
        afterInsert: () => {
          if (held) return;
          held = true;
          return gate.promise;
        },
        beforeCommit: () => {
          committedAt = Date.now();
        },
      },
    });
    try {
      const first = app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
      await until(() => app.db.inTransaction);
      await pause(900); // the unit has held the lock for longer than the lease
      const resent = tracked(app.server.callTool(app.connection, 'book_visit', { slot: 's1' }));
      await pause(50);
      expect(resent.settled()).toBe(false);
      expect(renewals).toEqual([]);
      gate.resolve();
      expect((await first).structuredContent).toMatchObject({
        status: 'ok',
        result: { visit: { id: 'v_1' } },
      });
      expect((await resent.promise).structuredContent).toMatchObject({ replayed: true });
      await until(() => renewals.length > 0);
      // the renewal queued during the unit landed after its commit, and found the result stored
      expect(renewals[0]?.settledAt).toBeGreaterThanOrEqual(committedAt);
      expect(renewals[0]?.held).toBe(false);
      expect(app.counts()).toEqual({ visits: 1, replay: 1, audit: 1, mails: 0 });
    } finally {
      app.db.close();
      temp.dispose();
    }
  });
});
