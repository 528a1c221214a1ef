/**
 * What the product logs under a burst of clients' protocol mistakes and
 * while the credential store is down: one line per kind and minute, then one
 * line with the suppressed count, at info or warn, never error, and never
 * the caller's text or the store's error message. Real requests against the
 * product's own server; the product's clock rolls the minute.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { berlin, seededTemplate, testApp } from './fixtures/testApp.js';

const MINUTE = 60_000;
const SECRET = 'connect ECONNREFUSED postgres://booking:hunter2@db.internal:5432/booking';
const LONG = 'Z'.repeat(10_000);

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly event?: string;
  readonly suppressed?: number;
  readonly [key: string]: unknown;
}

/** The lines written since `from`, parsed, without the per-call `tools/call` lines. */
const linesOf = (logLines: readonly string[], from = 0): Line[] =>
  logLines
    .slice(from)
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.event !== 'tools/call');

const envelope = (version = '2026-07-28') => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** A 2026-07-28 `tools/call` of `name` over HTTP; `headers` replace the routing headers (`mcp-name` is the tool's). */
function toolCall(
  url: URL,
  token: string,
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, _meta: envelope() },
    }),
  });
}

/** A 2026-07-28 `tools/call` of find_bookings whose Mcp-Name header names another tool: the SDK answers 400. */
const mismatch = (url: URL, token: string, headers: Record<string, string> = {}): Promise<Response> =>
  toolCall(url, token, 'find_bookings', {}, { 'mcp-name': 'find_customers', ...headers });

/** Sends `count` requests 20 at a time; the statuses, in order. */
async function burst(count: number, send: () => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += 20) {
    const batch = Array.from({ length: Math.min(20, count - sent) }, async () => {
      const response = await send();
      await response.arrayBuffer();
      return response.status;
    });
    statuses.push(...(await Promise.all(batch)));
  }
  return statuses;
}

describe('the MCP endpoint’s logs', () => {
  let dir = '';
  let template = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-operator-logs-'));
    template = await seededTemplate(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one info line for a burst of 200 header mismatches and one with the suppressed count a minute later', async () => {
    await using t = await testApp({ template });
    const { mcpUrl } = await t.serve();
    const token = await t.mint();
    const from = t.logLines.length;
    expect(new Set(await burst(200, () => mismatch(mcpUrl, token)))).toEqual(new Set([400]));

    const during = linesOf(t.logLines, from);
    expect(during.filter((line) => line.level >= 50)).toEqual([]);
    expect(during).toEqual([
      expect.objectContaining({
        level: 30,
        event: 'protocol_error',
        transport: 'http',
        status: 400,
        step: 'request',
        client_address: '127.0.0.1',
      }),
    ]);

    t.advance(MINUTE);
    expect((await mismatch(mcpUrl, token)).status).toBe(400);
    const after = linesOf(t.logLines, from);
    expect(after.map((line) => [line.level, line.event, line.suppressed])).toEqual([
      [30, 'protocol_error', undefined],
      [30, 'protocol_error_suppressed', 199],
      [30, 'protocol_error', undefined],
    ]);
  });

  it('keeps a 10,000-character header out of the answer and the log', async () => {
    await using t = await testApp({ template });
    const { mcpUrl } = await t.serve();
    const token = await t.mint();
    const from = t.logLines.length;
    const oversized: Record<string, string>[] = [
      { 'mcp-protocol-version': LONG },
      { 'mcp-name': LONG },
      { 'mcp-method': LONG },
    ];
    for (const headers of oversized) {
      const answer = await mismatch(mcpUrl, token, headers);
      const text = await answer.text();
      expect(answer.status).toBe(400);
      expect(text.length).toBeLessThan(2_048);
      expect(text).not.toContain('Z'.repeat(201));
    }
    const logged = t.logLines.slice(from).join('\n');
    expect(logged).not.toContain('Z'.repeat(201));
    expect(linesOf(t.logLines, from).filter((line) => line.level >= 50)).toEqual([]);
  });

  it('writes one warn line each for the outage and its 503s while the credential store is down, never error', async () => {
    await using t = await testApp({ template });
    const { mcpUrl } = await t.serve();
    const token = await t.mint();
    const down = vi
      .spyOn(t.app.credentialStore, 'findByTokenHash')
      .mockRejectedValue(Object.assign(new Error(SECRET), { code: 'ECONNREFUSED' }));
    const call = () =>
      toolCall(mcpUrl, token, 'create_booking', {
        customer_id: 'cu_alan',
        starts_at: berlin(15, '08:00'),
        duration_minutes: 30,
        price: { minor_units: 4500, currency: 'EUR' },
      });
    const before = await t.count('bookings');
    const from = t.logLines.length;
    expect(new Set(await burst(200, call))).toEqual(new Set([503]));
    expect(await t.count('bookings')).toBe(before);

    const during = linesOf(t.logLines, from);
    expect(during.map((line) => [line.level, line.event])).toEqual([
      [40, 'store_outage'],
      [40, 'admission_refusal'],
    ]);
    expect(during[0]).toMatchObject({ transport: 'http', error_type: 'Error', error_code: 'ECONNREFUSED' });
    expect(during[1]).toMatchObject({ status: 503, step: 'unavailable' });

    t.advance(MINUTE);
    expect((await call()).status).toBe(503);
    const after = linesOf(t.logLines, from);
    expect(after.map((line) => [line.level, line.event, line.suppressed])).toEqual([
      [40, 'store_outage', undefined],
      [40, 'admission_refusal', undefined],
      [40, 'store_outage_suppressed', 199],
      [40, 'store_outage', undefined],
      [40, 'admission_refusal_suppressed', 199],
      [40, 'admission_refusal', undefined],
    ]);
    expect(t.logLines.slice(from).join('\n')).not.toMatch(/hunter2|postgres:|db\.internal/);

    down.mockRestore();
    expect((await call()).status).toBe(200);
  });
});
