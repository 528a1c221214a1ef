/**
 * A real task with the official SDK v2 client, over Streamable HTTP in both
 * protocol eras and over stdio: find a customer, book a visit (and hit the
 * duplicate guard), update it with its version, mail the customer through
 * preview and confirmation, and see it all in list_recent_changes. Every
 * step is checked against the rows it should (and should not) have written.
 */
import { describe, expect, it } from 'vitest';
import { call, ERAS, type Era, httpSession, type Session, stdioSession } from './fixtures/clients.js';
import { berlin, type TestApp, testApp } from './fixtures/testApp.js';

interface Carrier {
  readonly name: string;
  open(t: TestApp, token: string, era: Era): Promise<Session>;
}

const CARRIERS: readonly Carrier[] = [
  {
    name: 'Streamable HTTP',
    open: async (t, token, era) => httpSession((await t.serve()).mcpUrl, token, era),
  },
  { name: 'stdio', open: (t, token, era) => stdioSession(t.app, token, era) },
];

type Booking = { id: string; version: string; duration_minutes: number; starts_at: { utc: string } };

async function walk(t: TestApp, session: Session): Promise<void> {
  const { client } = session;
  const found = await call(client, 'find_customers', { query: 'Ada' });
  const customers = found.result?.customers as { id: string; name: string }[];
  expect(customers.map((c) => c.id)).toEqual(['cu_ada']);

  const start = berlin(20, '09:00');
  const args = {
    customer_id: 'cu_ada',
    technician_id: 'te_ravi',
    starts_at: start,
    duration_minutes: 60,
    price: { amount: '95.00', currency: 'EUR' },
  };
  const created = await call(client, 'create_booking', args);
  const booking = created.result as Booking;
  expect(created.status).toBe('ok');
  expect(
    await t.count(
      'bookings',
      'customer_id = ? AND starts_at = ?',
      'cu_ada',
      Date.parse(booking.starts_at.utc),
    ),
  ).toBe(1);

  const duplicate = await call(client, 'create_booking', { ...args, duration_minutes: 90 });
  expect(duplicate.error?.code).toBe('duplicate');
  expect(JSON.stringify(duplicate.error)).toContain(booking.id);
  expect(JSON.stringify(duplicate.error)).toContain('update_booking');
  expect(await t.count('bookings', 'customer_id = ?', 'cu_ada')).toBe(2);

  const updated = await call(client, 'update_booking', {
    id: booking.id,
    version: booking.version,
    duration_minutes: 90,
  });
  expect((updated.result as Booking).duration_minutes).toBe(90);
  expect(await t.count('bookings', 'id = ? AND duration_minutes = 90', booking.id)).toBe(1);

  const preview = await call(client, 'notify_customer', {
    booking_id: booking.id,
    note: 'Kim brings the spare valve.',
  });
  expect(preview.status).toBe('PREVIEW');
  expect(JSON.stringify(preview.content)).toContain('ada@example.com');
  expect(await t.count('outbound_messages')).toBe(0);

  const confirmed = await call(client, 'confirm_action', {
    confirm_token: preview.confirm_token,
    confirm_summary: preview.confirm_summary,
  });
  expect(confirmed.status).toBe('ok');
  expect(
    await t.count('outbound_messages', 'booking_id = ? AND to_address = ?', booking.id, 'ada@example.com'),
  ).toBe(1);

  const changes = await call(client, 'list_recent_changes', {});
  const rows = changes.result?.changes as { tool: string; object_ids: string[] }[];
  expect(rows.map((r) => r.tool)).toEqual(['notify_customer', 'update_booking', 'create_booking']);
  expect(rows.every((r) => r.object_ids.includes(booking.id))).toBe(true);
  expect(
    await t.count(
      'gatehouse_audit',
      "channel = 'mcp' AND action IN ('create_booking', 'update_booking', 'notify_customer')",
    ),
  ).toBe(3);
}

describe('the booking MCP server with the official client', () => {
  for (const carrier of CARRIERS) {
    for (const era of ERAS) {
      it(`walks a booking from search to a confirmed mail over ${carrier.name} (${era.label})`, async () => {
        await using t = await testApp();
        await using session = await carrier.open(t, await t.mint(), era);
        expect(session.client.getProtocolEra()).toBe(era.era);
        await walk(t, session);
      });
    }
  }

  it('lists the tools a dispatcher’s token may use, and hides the rest', async () => {
    await using t = await testApp();
    const token = await t.mint({ workspaceId: 'ws_acme', personId: 'p_dan' });
    await using session = await httpSession((await t.serve()).mcpUrl, token, ERAS[1]);
    const { tools } = await session.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('create_booking');
    expect(names).toContain('page_technician');
    expect(names).not.toContain('delete_booking');
    expect(names).not.toContain('mute_alerts');
    expect(tools.find((tool) => tool.name === 'delete_booking')).toBeUndefined();
    expect(tools.find((tool) => tool.name === 'find_bookings')?.annotations?.readOnlyHint).toBe(true);
  });
});
