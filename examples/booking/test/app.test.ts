import { sha256Hex } from '@gatehouse/core';
import { listen } from '@gatehouse/core/node';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { BookingData, bookingServer } from '../src/app.js';

const TOKEN = 'gh_test_token_for_the_example';

describe('bookingServer', () => {
  it('serves find_bookings and create_booking to the official client, scoped to the token’s workspace', async () => {
    const data = new BookingData();
    data.bookings.push({
      id: 'bk_other',
      tenantId: 'ws_other',
      customer: 'Ada',
      startsAt: '2030-01-01T00:00:00Z',
      createdBy: 'x',
      paymentReference: 'PAY-DECOY',
    });
    const tokens = new Map([[sha256Hex(TOKEN), { tenantId: 'ws_acme', personId: 'person_owner' }]]);
    await using served = await listen(bookingServer(data, tokens));
    const client = new Client({ name: 'example-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(served.url, {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const created = await client.callTool({
        name: 'create_booking',
        arguments: { customer: 'Ada', starts_at: '2030-05-04T09:00:00+02:00' },
      });
      expect(created.isError).toBeFalsy();
      const found = await client.callTool({ name: 'find_bookings', arguments: { customer: 'ada' } });
      const bookings = (found.structuredContent as { result: { bookings: { id: string }[] } }).result
        .bookings;
      expect(bookings.map((b) => b.id)).toEqual(['bk_0001']);
      expect(JSON.stringify(found)).not.toContain('PAY-');
      expect(data.bookings.filter((b) => b.tenantId === 'ws_acme')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('refuses a past start through the service, writing nothing', async () => {
    const data = new BookingData();
    const tokens = new Map([[sha256Hex(TOKEN), { tenantId: 'ws_acme', personId: 'p' }]]);
    const server = bookingServer(data, tokens);
    const decision = await server.authenticate({ token: TOKEN });
    if (!decision.ok) throw new Error('demo token refused');
    const result = await server.callTool(decision.connection, 'create_booking', {
      customer: 'Ada',
      starts_at: '2001-01-01T09:00:00Z',
    });
    expect(result.structuredContent).toMatchObject({ error: { code: 'invalid_arguments' } });
    expect(data.bookings).toHaveLength(0);
    expect((await server.authenticate({ token: 'gh_wrong' })).ok).toBe(false);
  });
});
