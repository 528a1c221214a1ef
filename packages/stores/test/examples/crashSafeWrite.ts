import type { JsonObject } from '@gatehousejs/core';
import type { ProductDatabase } from './setup.js';

/** What the write path hands the service: the fingerprint and the audit columns. */
export interface WriteTicket {
  readonly replayKey: string;
  readonly argumentsDigest: string;
  readonly auditId: string;
  readonly connectionId: string;
  readonly now: number;
}

/** The service's input. */
export interface BookingInput {
  readonly customer: string;
  readonly slot: string;
}

const WINDOW_MS = 10 * 60_000;
const LEASE_MS = 30_000;

/** A booking service whose write, audit row and replay record commit together. */
export function bookingWrites({ db, stores }: ProductDatabase) {
  const insertBooking = db.prepare<[string, string, string]>(
    'INSERT INTO bookings (id, customer, slot) VALUES (?, ?, ?)',
  );

  // #region create-booking
  // One transaction: the booking row, its audit row and its replay record.
  const createBooking = db.transaction((ticket: WriteTicket, fence: string, input: BookingInput) => {
    const id = `bk_${input.slot}`;
    insertBooking.run(id, input.customer, input.slot);
    const result = { booking: { id, customer: input.customer, slot: input.slot } };
    stores.audit.appendSync({
      id: ticket.auditId,
      at: ticket.now,
      channel: 'mcp',
      tenantId: 't1',
      connectionId: ticket.connectionId,
      clientName: 'claude',
      actorId: 'p1',
      action: 'create_booking',
      outcome: 'ok',
      objectIds: [id],
      note: null,
    });
    const { replayKey, argumentsDigest, now } = ticket;
    if (!stores.replay.completeSync(replayKey, fence, argumentsDigest, result, WINDOW_MS, now)) {
      throw new Error('The lease ran out and an identical call took over; nothing of this one is kept.');
    }
    return result;
  });
  // #endregion create-booking

  // #region create-booking-once
  // The write path: claim the fingerprint, write, or replay the first result.
  function createBookingOnce(ticket: WriteTicket, input: BookingInput): JsonObject {
    const begin = stores.replay.beginSync(ticket.replayKey, ticket.argumentsDigest, LEASE_MS, ticket.now);
    if (begin.state === 'completed') return { ...begin.result, replayed: true };
    if (begin.state === 'running') throw new Error('An identical call is still running.');
    try {
      return createBooking.immediate(ticket, begin.fence, input);
    } catch (error) {
      stores.replay.releaseSync(ticket.replayKey, begin.fence);
      throw error;
    }
  }

  // On a handle a Gatehouse server also writes on, take the lock every writer shares.
  return (ticket: WriteTicket, input: BookingInput): Promise<JsonObject> =>
    stores.lock.run(() => createBookingOnce(ticket, input));
  // #endregion create-booking-once
}
