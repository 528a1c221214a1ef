/**
 * What the database holds after an outage, against what the replicas told
 * the load's ledger: every acknowledged booking with exactly one audit row,
 * no booking or audit row without the other, no start booked twice, and one
 * message per executed confirmation (at most one per unacknowledged one).
 */
import type pg from 'pg';
import type { Ledger } from './outageLoad.js';

/** What the database holds against what the ledger was told. */
export interface Holdings {
  /** Acknowledged ids with no booking row. */
  readonly lostBookings: string[];
  /** Bookings of the ledger's range without exactly one `mcp` audit row of their create. */
  readonly bookingsWithoutOneAudit: { id: string; mcp: number; total: number }[];
  /** Create audit rows naming a booking that does not exist. */
  readonly auditWithoutBooking: number;
  /** Bookings in the range, against creates that ended acknowledged. */
  readonly bookings: number;
  readonly acknowledged: number;
  /** Starts holding more than one booking. */
  readonly doubled: number;
  /** Creates answered "nothing ran" that a retry found had run (`replayed`). */
  readonly ranThoughUnavailable: number;
  /** Creates not acknowledged at first, by how they ended (first answer → last answer). */
  readonly createEndings: Record<string, number>;
  /** Confirmations and the messages sent about their booking, where that count is wrong. */
  readonly wrongMessages: { bookingId: string; first: string; last: string; messages: number }[];
  /** Confirmations by how they ended (first answer → last answer). */
  readonly confirmEndings: Record<string, number>;
}

/** How many of `calls` ended how: `first answer → last answer`. */
function endings(calls: readonly { first: string; last: string }[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const { first, last } of calls) tally[`${first} → ${last}`] = (tally[`${first} → ${last}`] ?? 0) + 1;
  return tally;
}

/** Compares the database (through `pool`) with `ledger`. */
export async function holdings(pool: pg.Pool, ledger: Ledger): Promise<Holdings> {
  const { from, to } = ledger.range();
  const ids = ledger.creates.flatMap((c) => (c.id ? [c.id] : []));
  const found = await pool.query<{ id: string }>('SELECT id FROM bookings WHERE id = ANY($1)', [ids]);
  const present = new Set(found.rows.map((r) => r.id));
  const audits = await pool.query<{ id: string; mcp: number; total: number }>(
    `SELECT b.id, count(a.id) FILTER (WHERE a.channel = 'mcp')::int AS mcp, count(a.id)::int AS total
       FROM bookings b LEFT JOIN gatehouse_audit a
         ON a.action = 'create_booking' AND a.outcome = 'ok' AND b.id = ANY(a.object_ids)
      WHERE b.starts_at >= $1 AND b.starts_at < $2 GROUP BY b.id`,
    [from, to],
  );
  const orphans = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM gatehouse_audit a WHERE a.action = 'create_booking' AND a.outcome = 'ok'
        AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.id = ANY(a.object_ids))`,
  );
  const doubled = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT customer_id, starts_at FROM bookings
      WHERE starts_at >= $1 AND starts_at < $2 GROUP BY 1, 2 HAVING count(*) > 1) d`,
    [from, to],
  );
  const messages = await pool.query<{ booking_id: string; n: number }>(
    'SELECT booking_id, count(*)::int AS n FROM outbound_messages WHERE booking_id = ANY($1) GROUP BY 1',
    [ledger.confirms.map((c) => c.bookingId)],
  );
  const sent = new Map(messages.rows.map((r) => [r.booking_id, r.n]));
  const wrongMessages = ledger.confirms.flatMap((c) => {
    const n = sent.get(c.bookingId) ?? 0;
    const executed = c.last === 'sent' || c.last === 'replayed';
    return (executed ? n === 1 : n <= 1)
      ? []
      : [{ bookingId: c.bookingId, first: c.first, last: c.last, messages: n }];
  });
  return {
    lostBookings: ids.filter((id) => !present.has(id)),
    bookingsWithoutOneAudit: audits.rows.filter((r) => r.mcp !== 1 || r.total !== 1),
    auditWithoutBooking: orphans.rows[0]?.n ?? 0,
    bookings: audits.rows.length,
    acknowledged: ids.length,
    doubled: doubled.rows[0]?.n ?? 0,
    ranThoughUnavailable: ledger.creates.filter(
      (c) => (c.first === 'store_unavailable' || c.first === 'http 503') && c.last === 'replayed',
    ).length,
    createEndings: endings(ledger.creates.filter((c) => c.first !== 'result')),
    wrongMessages,
    confirmEndings: endings(ledger.confirms),
  };
}
