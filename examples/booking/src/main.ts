import { randomBytes } from 'node:crypto';
import { sha256Hex } from '@gatehouse/core';
import { listen } from '@gatehouse/core/node';
import { serveStdio } from '@gatehouse/core/stdio';
import { BookingData, bookingServer } from './app.js';

const data = new BookingData();
data.bookings.push({
  id: data.nextId(),
  tenantId: 'ws_acme',
  customer: 'Ada Lovelace',
  startsAt: '2030-05-04T09:00:00+02:00',
  createdBy: 'person_owner',
  paymentReference: 'PAY-SEEDED',
});

if (process.argv.includes('--stdio')) {
  const token = process.env.GATEHOUSE_TOKEN;
  const tokens = new Map(
    token ? [[sha256Hex(token), { tenantId: 'ws_acme', personId: 'person_owner' }]] : [],
  );
  serveStdio(bookingServer(data, tokens), { token });
} else {
  const token = `gh_${randomBytes(24).toString('base64url')}`;
  const tokens = new Map([[sha256Hex(token), { tenantId: 'ws_acme', personId: 'person_owner' }]]);
  const port = Number(process.env.PORT ?? 3333);
  const { url } = await listen(bookingServer(data, tokens), { port });
  const config = {
    mcpServers: { booking: { type: 'http', url: url.href, headers: { Authorization: `Bearer ${token}` } } },
  };
  console.log(`Gatehouse booking example (minimal, in memory)

MCP URL:     ${url.href}
Demo token:  ${token}   (workspace ws_acme; shown once, valid until this process stops)

Claude Code:
  claude mcp add --transport http booking ${url.href} --header "Authorization: Bearer ${token}"

MCP Inspector or any mcp.json:
${JSON.stringify(config, null, 2)}

Press Ctrl+C to stop.`);
}
