/**
 * Every refusal, the SDK's own included (headers that disagree with the
 * body, an unsupported protocol version, an unknown method, an invalid id),
 * repeats at most 200 characters of what the caller sent, over Streamable
 * HTTP in both eras, over stdio, and through the SDK v1 admission middleware.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Listening, listen } from '../src/node.js';
import { capRpcError } from '../src/serve/echoes.js';
import { serveStdio } from '../src/stdio.js';
import { ECHO_LIMIT } from '../src/text.js';
import { notesServer, TOKEN_T1 } from './fixtures/notesServer.js';
import { httpHost } from './fixtures/v1Carriers.js';
import { notesApp } from './fixtures/v1Notes.js';

/** What the caller sends, 10,000 characters of it: no answer may repeat more than 200 in a row. */
const LONG = 'Z'.repeat(10_000);
const MODERN = '2026-07-28';

/** The longest run of the caller's character in `text`. */
const longestRun = (text: string): number => Math.max(0, ...(text.match(/Z+/g) ?? []).map((r) => r.length));

const envelope = (version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

interface Case {
  readonly name: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

const modernHeaders = (method: string, name?: string): Record<string, string> => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name === undefined ? {} : { 'mcp-name': name }),
});

const request = (method: string, params: Record<string, unknown>, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

const MODERN_CASES: readonly Case[] = [
  {
    name: 'an MCP-Protocol-Version header the envelope disagrees with',
    headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': LONG },
    body: request('tools/list', { _meta: envelope() }),
  },
  {
    name: 'an envelope protocol version the header disagrees with',
    headers: modernHeaders('tools/list'),
    body: request('tools/list', { _meta: envelope(LONG) }),
  },
  {
    name: 'an unsupported protocol version in header and envelope',
    headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': LONG },
    body: request('tools/list', { _meta: envelope(LONG) }),
  },
  {
    name: 'an Mcp-Method header the body disagrees with',
    headers: modernHeaders(LONG),
    body: request('tools/list', { _meta: envelope() }),
  },
  {
    name: 'an unknown method',
    headers: modernHeaders(LONG),
    body: request(LONG, { _meta: envelope() }),
  },
  {
    name: 'an Mcp-Name header the tool name disagrees with',
    headers: modernHeaders('tools/call', LONG),
    body: request('tools/call', { name: 'add_note', arguments: { text: 'x' }, _meta: envelope() }),
  },
  {
    name: 'a tool name the Mcp-Name header disagrees with',
    headers: modernHeaders('tools/call', 'add_note'),
    body: request('tools/call', { name: LONG, arguments: {}, _meta: envelope() }),
  },
  {
    name: 'an unknown tool name',
    headers: modernHeaders('tools/call', LONG),
    body: request('tools/call', { name: LONG, arguments: {}, _meta: envelope() }),
  },
  {
    name: 'an id of 10,000 characters',
    headers: modernHeaders('tools/list'),
    body: request('tools/list', { _meta: envelope() }, LONG),
  },
  {
    name: 'an id of 10,000 characters on a tools/call',
    headers: modernHeaders('tools/call', LONG),
    body: request('tools/call', { name: LONG, arguments: {}, _meta: envelope() }, LONG),
  },
];

const LEGACY_CASES: readonly Case[] = [
  {
    name: 'an MCP-Protocol-Version header of 10,000 characters',
    headers: { 'mcp-protocol-version': LONG },
    body: request('tools/list', {}),
  },
  { name: 'an unknown method', headers: {}, body: request(LONG, {}) },
  { name: 'an id of 10,000 characters', headers: {}, body: request('tools/list', {}, LONG) },
  {
    name: 'an initialize with a protocol version of 10,000 characters',
    headers: {},
    body: request('initialize', {
      protocolVersion: LONG,
      capabilities: {},
      clientInfo: { name: LONG, version: '1' },
    }),
  },
  { name: 'an unknown tool name', headers: {}, body: request('tools/call', { name: LONG, arguments: {} }) },
];

async function post(url: URL, { headers, body }: Case): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN_T1}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe('capRpcError', () => {
  it('cuts the message and every string of data to 200 characters and keeps the code', () => {
    const capped = capRpcError({
      code: -32020,
      message: `the header names ${LONG}`,
      data: { mismatch: { header: LONG, body: `the body names ${LONG}` }, supported: ['2026-07-28'] },
    });
    expect(capped.code).toBe(-32020);
    expect(capped.message).toHaveLength(ECHO_LIMIT);
    expect(capped.message.endsWith('…')).toBe(true);
    expect(capped.data).toEqual({
      mismatch: {
        header: `${'Z'.repeat(ECHO_LIMIT - 1)}…`,
        body: expect.stringMatching(/^the body names Z+…$/),
      },
      supported: ['2026-07-28'],
    });
    expect(JSON.stringify(capped.data).length).toBeLessThan(1_024);
  });

  it('leaves out data that is still larger than 1 KiB once its strings are cut', () => {
    const capped = capRpcError({
      code: -32602,
      message: 'Invalid params',
      data: { issues: Array(50).fill(LONG) },
    });
    expect(capped).toEqual({ code: -32602, message: 'Invalid params' });
  });

  it('returns a short error as it is', () => {
    const error = { code: -32601, message: 'Method not found', data: { method: 'x' } };
    expect(capRpcError(error)).toBe(error);
  });
});

describe.each([
  ['2026-07-28', MODERN_CASES],
  ['2025-11-25', LEGACY_CASES],
] as const)('refusals over Streamable HTTP (%s)', (_era, cases) => {
  const app = notesServer();
  let served: Listening;
  beforeAll(async () => {
    served = await listen(app.server);
  });
  afterAll(() => served?.close());

  it.each(cases)('repeat at most 200 characters of $name', async (given) => {
    const reported = app.reported.length;
    const { status, text } = await post(served.url, given);
    expect(status).toBeLessThan(500);
    expect(text.length).toBeLessThan(2_048);
    expect(longestRun(text)).toBeLessThanOrEqual(ECHO_LIMIT);
    // a client's mistake is the client's: nothing is reported as the server's error
    expect(app.reported.slice(reported)).toEqual([]);
    expect(app.rows).toHaveLength(2);
  });
});

/** Serves one stdio connection over pipes; `exchange` writes a line and waits for the answer with that id. */
function stdioConnection() {
  const app = notesServer();
  const input = new PassThrough();
  const output = new PassThrough();
  const handle = serveStdio(app.server, { token: TOKEN_T1, input, output });
  const lines: string[] = [];
  let held = '';
  output.on('data', (chunk: Buffer) => {
    held += chunk.toString('utf8');
    for (let at = held.indexOf('\n'); at !== -1; at = held.indexOf('\n')) {
      lines.push(held.slice(0, at));
      held = held.slice(at + 1);
    }
  });
  const exchange = async (message: object): Promise<string> => {
    const seen = lines.length;
    input.write(`${JSON.stringify(message)}\n`);
    for (let i = 0; i < 200 && lines.length === seen; i++) await new Promise((r) => setTimeout(r, 5));
    const line = lines[seen];
    if (line === undefined) throw new Error('no answer');
    return line;
  };
  return { app, exchange, [Symbol.asyncDispose]: () => handle.close() };
}

describe('refusals over stdio', () => {
  it.each([
    ['an unsupported envelope protocol version', request('tools/list', { _meta: envelope(LONG) })],
    [
      'an initialize with a protocol version of 10,000 characters',
      request('initialize', {
        protocolVersion: LONG,
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    ],
    ['an id of 10,000 characters', request('tools/list', { _meta: envelope() }, LONG)],
    ['an unknown method', request(LONG, { _meta: envelope() })],
    ['a message that is not JSON-RPC 2.0, with a long id', { id: LONG, method: 'tools/list' }],
    ['an unknown tool name', request('tools/call', { name: LONG, arguments: {}, _meta: envelope() })],
  ])('repeat at most 200 characters of %s', async (_name, message) => {
    await using connection = stdioConnection();
    const line = await connection.exchange(message);
    expect(line.length).toBeLessThan(2_048);
    expect(longestRun(line)).toBeLessThanOrEqual(ECHO_LIMIT);
    expect(connection.app.reported).toEqual([]);
  });
});

describe('the SDK v1 admission middleware', () => {
  it('refuses an MCP-Protocol-Version header of 10,000 characters with a short answer', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless');
    const { status, text } = await post(host.url, {
      name: 'v1',
      headers: { 'mcp-protocol-version': LONG },
      body: request('tools/list', {}),
    });
    expect(status).toBe(400);
    expect(text.length).toBeLessThan(2_048);
    expect(longestRun(text)).toBe(0);
    expect(app.calls()).toEqual([]);
    expect(app.reported).toEqual([]);
  });
});
