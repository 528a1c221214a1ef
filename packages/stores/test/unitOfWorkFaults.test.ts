// Fault injection inside the unit of work (I10, I15): a write never commits
// without its audit row and its replay record.
//
// Before the unit of work (transactionGuard and replayGuard), core caught a
// failed audit append and reported it, and replayGuard caught a failed
// replay completion (`onStoreError`): either way the call answered ok and
// the write committed without its audit row or without its replay record,
// so a re-send ran it twice. A completion that lost its claim was not
// detected at all (complete returned nothing and overwrote the newer claim).
import { join } from 'node:path';
import type { AuditStore, ReplayStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { tempDatabase } from './fixtures/tempDatabase.js';
import {
  type Counts,
  openWriteServer,
  type WriteServer,
  type WriteServerOptions,
} from './fixtures/writeServer.js';

const NOTHING: Counts = { visits: 0, replay: 0, audit: 0, mails: 0 };
const ONCE: Counts = { visits: 1, replay: 1, audit: 1, mails: 0 };

/** A switch the test turns off to end the fault. */
interface Fault {
  on: boolean;
}

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

/** An audit store whose append, inside a unit of work, writes its row and then fails. */
const failingAudit =
  (fault: Fault) =>
  (store: AuditStore): AuditStore => ({
    async append(row, unit) {
      await store.append(row, unit);
      if (fault.on && unit !== undefined) throw new Error('The audit disk is full.');
    },
    list: (query) => store.list(query),
  });

/** A replay store whose completion, while the fault is on, writes and then throws, or reports its fence lost. */
const failingReplay =
  (fault: Fault, how: 'throw' | 'fence lost') =>
  (store: ReplayStore): ReplayStore => ({
    begin: (...args) => store.begin(...args),
    async complete(...args) {
      if (!fault.on) return store.complete(...args);
      if (how === 'fence lost') return false;
      await store.complete(...args);
      throw new Error('The replay disk is full.');
    },
    release: (...args) => store.release(...args),
    holds: (...args) => store.holds(...args),
    renew: (...args) => store.renew(...args),
  });

/** The call fails as `code`, leaves nothing behind, and once the fault ends a retry runs exactly once. */
async function expectNothingKeptThenOneRetry(app: WriteServer, fault: Fault, code: string) {
  const failed = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
  expect(failed.structuredContent).toMatchObject({ error: { code } });
  expect(app.counts()).toEqual(NOTHING);
  expect(app.db.inTransaction).toBe(false);
  fault.on = false;
  const retried = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
  expect(retried.structuredContent).toMatchObject({ status: 'ok', result: { visit: { id: 'v_1' } } });
  expect(retried.structuredContent.replayed).toBeUndefined();
  const again = await app.server.callTool(app.connection, 'book_visit', { slot: 's1' });
  expect(again.structuredContent).toMatchObject({ replayed: true, result: { visit: { id: 'v_1' } } });
  expect(app.counts()).toEqual(ONCE);
}

describe('sqliteUnitOfWork under faults', () => {
  it('keeps no write, no audit row and no replay record when the audit append fails after the write, and a retry runs once', async () => {
    const fault = { on: true };
    await withServer({ audit: failingAudit(fault) }, async (app) => {
      await expectNothingKeptThenOneRetry(app, fault, 'internal_error');
      expect(app.internalErrors).toEqual([new Error('The audit disk is full.')]);
      expect(app.stores.audit.listSync({ limit: 10 })).toHaveLength(1);
    });
  });

  it('keeps no write, no audit row and no completed replay record when the replay completion throws', async () => {
    const fault = { on: true };
    await withServer({ replayStore: failingReplay(fault, 'throw') }, async (app) => {
      await expectNothingKeptThenOneRetry(app, fault, 'internal_error');
      expect(app.internalErrors).toEqual([new Error('The replay disk is full.')]);
    });
  });

  it('keeps no write, no audit row and no completed replay record when the replay completion finds its fence lost', async () => {
    const fault = { on: true };
    await withServer({ replayStore: failingReplay(fault, 'fence lost') }, async (app) => {
      await expectNothingKeptThenOneRetry(app, fault, 'store_unavailable');
      expect(app.internalErrors).toEqual([]);
    });
  });
});
