/**
 * The twin comparison itself: two answers that differ only in what the
 * servers generate (a confirm token, an instant with its seconds, in UTC or
 * with an offset) compare equal, even when the twins' clocks sit on either
 * side of a second; any other difference is reported.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { GatehouseServer } from '../src/server.js';
import { nativeTwinsOf, type TwinRequest } from './fixtures/nativeTwin.js';
import { connection, pipelineDesk } from './fixtures/pipelineDesk.js';

const TOKEN = 'ghmcp_twin_0123456789ab';
const ERA = '2026-07-28';

/** A desk behind one token, on its own clock. */
function desk(clockAheadMs: number, rename?: string) {
  const built = pipelineDesk();
  built.advance(clockAheadMs);
  const server = {
    ...built.server,
    ...(rename ? { name: rename } : {}),
    authenticate: async ({ token }: { token: string }) =>
      token === TOKEN
        ? { ok: true as const, connection: connection() }
        : { ok: false as const, status: 401, reason: 'Unknown token.' },
  };
  return server as unknown as GatehouseServer<string>;
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': ERA,
  'io.modelcontextprotocol/clientInfo': { name: 'twin', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const preview: TwinRequest = {
  headers: {
    host: 'localhost',
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': ERA,
    'mcp-method': 'tools/call',
    'mcp-name': 'notify_owner',
  },
  body: {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'notify_owner',
      arguments: { note_id: 'n1' },
      _meta: ENVELOPE,
    },
  },
};

describe('the native twins’ comparison', () => {
  const apart = nativeTwinsOf({ native: desk(0), sdk: desk(1_000) });
  afterAll(() => apart.restore());

  it('takes instants a second apart, in UTC and with an offset, for generated values', async () => {
    const exchange = await apart.send(preview);
    const expires = JSON.parse(exchange.text).result.structuredContent.expires_at;
    // the preview carries its expiry both ways, so both forms were compared
    expect(expires.utc).toMatch(/T\d\d:\d\d:\d\dZ$/);
    expect(expires.local).toMatch(/T\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    expect(exchange.differences).toEqual([]);
  });

  it('still reports a difference that is no generated value', async () => {
    const renamed = nativeTwinsOf({ native: desk(0), sdk: desk(0, 'another-desk') });
    try {
      const discover: TwinRequest = {
        headers: { ...preview.headers, 'mcp-method': 'server/discover' },
        body: {
          jsonrpc: '2.0',
          id: 2,
          method: 'server/discover',
          params: { _meta: ENVELOPE },
        },
      };
      const exchange = await renamed.send(discover);
      expect(exchange.differences).toHaveLength(1);
      expect(exchange.differences[0]).toContain('another-desk');
    } finally {
      renamed.restore();
    }
  });
});
