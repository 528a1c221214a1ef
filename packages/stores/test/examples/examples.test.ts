import { join } from 'node:path';
import { type Connection, REPLAY_NOTE } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { tempDatabase } from '../fixtures/tempDatabase.js';
import { pause, tracked } from '../fixtures/timing.js';
import { bookingWrites, type WriteTicket } from './crashSafeWrite.js';
import { bookFromApi, createBookingServer } from './mcpServer.js';
import { openProductDatabase, type ProductDatabase } from './setup.js';

const ticket = (auditId: string): WriteTicket => ({
  replayKey: 'fp-c1-create_booking-abc',
  argumentsDigest: 'abc',
  auditId,
  connectionId: 'c1',
  now: 1_000,
});

const count = (product: ProductDatabase, table: string) =>
  product.db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n;

/** Runs `fn` on a fresh product database; closes and deletes it afterwards. */
async function withProduct(fn: (product: ProductDatabase) => Promise<void>): Promise<void> {
  const temp = tempDatabase();
  const product = openProductDatabase(join(temp.dir, 'product.db'));
  try {
    await fn(product);
  } finally {
    product.db.close();
    temp.dispose();
  }
}

describe('openProductDatabase', () => {
  it('opens the product’s tables and the stores on one handle, again and again', () => {
    const temp = tempDatabase();
    try {
      const file = join(temp.dir, 'product.db');
      openProductDatabase(file).db.close();
      const { db, stores } = openProductDatabase(file);
      expect(stores.switches.getSync('global')).toBeUndefined();
      expect(db.prepare('SELECT count(*) AS n FROM bookings').get()).toEqual({ n: 0 });
      db.close();
    } finally {
      temp.dispose();
    }
  });
});

describe('bookingWrites', () => {
  it('writes once, audits once, and replays the first result to a re-sent call', async () => {
    await withProduct(async (product) => {
      const createBookingOnce = bookingWrites(product);
      const input = { customer: 'Ada', slot: '2026-05-04T09:00' };
      const first = await createBookingOnce(ticket('01A'), input);
      const again = await createBookingOnce(ticket('01B'), input);
      expect(again).toEqual({ ...first, replayed: true });
      expect(count(product, 'bookings')).toBe(1);
      expect(product.stores.audit.listSync({ limit: 10 }).map((r) => r.id)).toEqual(['01A']);
    });
  });

  it('leaves no row, no audit row and a free fingerprint when the write fails', async () => {
    await withProduct(async (product) => {
      product.db.exec("INSERT INTO bookings VALUES ('bk_other', 'Bob', '2026-05-04T09:00')");
      const createBookingOnce = bookingWrites(product);
      const input = { customer: 'Ada', slot: '2026-05-04T09:00' };
      await expect(createBookingOnce(ticket('01A'), input)).rejects.toThrow(/UNIQUE/);
      expect(product.stores.audit.listSync({ limit: 10 })).toEqual([]);
      expect(product.stores.replay.beginSync(ticket('x').replayKey, 'abc', 1, 1_000).state).toBe('started');
    });
  });
});

const connection: Connection<'bookings.write'> = {
  connectionId: 'conn_1',
  tenantId: 't1',
  creatorId: 'p1',
  clientName: 'claude',
  channel: 'mcp',
  rights: new Set(['bookings.write'] as const),
};

describe('createBookingServer', () => {
  it('commits a booking with its audit row and replay record, and replays a re-sent call', async () => {
    await withProduct(async (product) => {
      const server = createBookingServer(product, async () => ({ ok: false, status: 401, reason: 'unused' }));
      const input = { customer: 'Ada', slot: 's1' };
      const first = await server.callTool(connection, 'book_slot', input, { requestId: 1 });
      expect(first.structuredContent).toMatchObject({ status: 'ok', result: { booking: { id: 'bk_s1' } } });
      const again = await server.callTool(connection, 'book_slot', input, { requestId: 2 });
      expect(again.structuredContent).toMatchObject({ replayed: true, replay_note: REPLAY_NOTE });
      expect([count(product, 'bookings'), count(product, 'gatehouse_audit')]).toEqual([1, 1]);
      expect(count(product, 'gatehouse_replay')).toBe(1);
    });
  });

  it('runs a REST write after an open MCP unit of work, never inside it', async () => {
    await withProduct(async (product) => {
      const server = createBookingServer(product, async () => ({ ok: false, status: 401, reason: 'unused' }));
      const held = product.stores.unitOfWork.run(() => pause(30));
      const api = tracked(bookFromApi(product, { customer: 'Bob', slot: 's2' }));
      await pause(10);
      expect(api.settled()).toBe(false);
      expect(count(product, 'bookings')).toBe(0);
      await held;
      expect(await api.promise).toEqual({ id: 'bk_s2', slot: 's2' });
      const mcp = await server.callTool(connection, 'book_slot', { customer: 'Ada', slot: 's1' });
      expect(mcp.structuredContent).toMatchObject({ status: 'ok' });
      expect(count(product, 'bookings')).toBe(2);
    });
  });
});
