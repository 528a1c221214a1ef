/**
 * The trace docs/telemetry.md shows, captured from the booking server with
 * the OpenTelemetry SDK in memory: one `create_booking` that books, and one
 * that the duplicate guard refuses. The docs must hold exactly what this
 * run renders (ids and the JSON-RPC id masked), so they cannot drift.
 * `TRACE_DUMP=<file>` writes the two renderings there, to update the docs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { openTelemetry } from '@gatehousejs/core/otel';
import { RawHttpClient } from '@gatehousejs/testing';
import { describe, expect, it } from 'vitest';
import { otelCapture } from '../../../packages/core/test/otelCapture.js';
import { berlin, testApp } from './fixtures/testApp.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const DOCS = new URL('../../../docs/telemetry.md', import.meta.url);

describe('the booking server’s trace of create_booking', () => {
  it('is the one docs/telemetry.md shows: a booking made, then a duplicate refused', async () => {
    const otel = otelCapture();
    await using t = await testApp({ telemetry: openTelemetry(otel.api) });
    const { mcpUrl } = await t.serve();
    const client = new RawHttpClient({
      url: mcpUrl,
      era: '2026-07-28',
      headers: { authorization: `Bearer ${await t.mint()}` },
    });
    const args = {
      customer_id: 'cu_ada',
      technician_id: 'te_ravi',
      starts_at: berlin(20, '09:00'),
      duration_minutes: 60,
      price: { amount: '95.00', currency: 'EUR' },
    };
    const meta = { meta: { traceparent: TRACEPARENT } };
    const created = await client.callTool('create_booking', args, meta);
    expect(created.result?.structuredContent).toMatchObject({ status: 'ok' });
    const booked = otel.render();
    otel.reset();
    const refused = await client.callTool('create_booking', { ...args, duration_minutes: 90 }, meta);
    expect(refused.result?.structuredContent).toMatchObject({
      status: 'error',
      error: { code: 'duplicate' },
    });
    expect(await t.count('bookings', 'customer_id = ?', 'cu_ada')).toBeGreaterThan(0);
    const duplicate = otel.render();

    expect(booked).toContain('tools/call create_booking [SERVER]');
    expect(duplicate).toContain('gatehouse.error.code = "duplicate"');
    if (process.env.TRACE_DUMP) writeFileSync(process.env.TRACE_DUMP, `${booked}\n\n${duplicate}\n`);
    const docs = readFileSync(DOCS, 'utf8');
    expect(docs, `docs/telemetry.md must show this trace:\n${booked}`).toContain(
      `\`\`\`text\n${booked}\n\`\`\``,
    );
    expect(docs, `docs/telemetry.md must show this trace:\n${duplicate}`).toContain(
      `\`\`\`text\n${duplicate}\n\`\`\``,
    );
  });
});
