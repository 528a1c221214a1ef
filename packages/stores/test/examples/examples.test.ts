import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDatabase } from '../fixtures/tempDatabase.js';
import { bookingWrites, type WriteTicket } from './crashSafeWrite.js';
import { openProductDatabase } from './setup.js';

const ticket = (auditId: string): WriteTicket => ({
  replayKey: 'fp-c1-create_booking-abc',
  argumentsDigest: 'abc',
  auditId,
  connectionId: 'c1',
  now: 1_000,
});

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
  it('writes once, audits once, and replays the first result to a re-sent call', () => {
    const temp = tempDatabase();
    try {
      const product = openProductDatabase(join(temp.dir, 'product.db'));
      const createBookingOnce = bookingWrites(product);
      const input = { customer: 'Ada', slot: '2026-05-04T09:00' };
      const first = createBookingOnce(ticket('01A'), input);
      const again = createBookingOnce(ticket('01B'), input);
      expect(again).toEqual({ ...first, replayed: true });
      expect(product.db.prepare('SELECT count(*) AS n FROM bookings').get()).toEqual({ n: 1 });
      expect(product.stores.audit.listSync({ limit: 10 }).map((r) => r.id)).toEqual(['01A']);
      product.db.close();
    } finally {
      temp.dispose();
    }
  });

  it('leaves no row, no audit row and a free fingerprint when the write fails', () => {
    const temp = tempDatabase();
    try {
      const product = openProductDatabase(join(temp.dir, 'product.db'));
      product.db.exec("INSERT INTO bookings VALUES ('bk_other', 'Bob', '2026-05-04T09:00')");
      const createBookingOnce = bookingWrites(product);
      const input = { customer: 'Ada', slot: '2026-05-04T09:00' };
      expect(() => createBookingOnce(ticket('01A'), input)).toThrow(/UNIQUE/);
      expect(product.stores.audit.listSync({ limit: 10 })).toEqual([]);
      expect(product.stores.replay.beginSync(ticket('x').replayKey, 'abc', 1, 1_000).state).toBe('started');
      product.db.close();
    } finally {
      temp.dispose();
    }
  });
});
