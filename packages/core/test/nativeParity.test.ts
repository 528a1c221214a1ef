/**
 * The native 2026-07-28 HTTP path answers byte for byte as the SDK does:
 * every request below goes to two twins of one server, native on and off,
 * and the answers must agree (status, headers but date, body; generated ids
 * and tokens aside). Each case also states whether the native path answers
 * it or hands it to the SDK, so the comparison can never pass by having the
 * SDK answer both.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Authenticate, Connection } from '../src/index.js';
import type { GatehouseServer } from '../src/server.js';
import { nativeTwins, type TwinRequest } from './fixtures/nativeTwin.js';
import { connection, pipelineDesk, type Right } from './fixtures/pipelineDesk.js';

const TOKEN = 'ghmcp_parity_0123456789';
const SCOPED = 'ghmcp_parity_scoped_0123';
const REVOKED = 'ghmcp_parity_revoked_012';
const ERA = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': ERA,
  'io.modelcontextprotocol/clientInfo': { name: 'parity', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const ELICITING = {
  ...ENVELOPE,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
};
const OAUTH = {
  resource: 'https://desk.example/mcp',
  authorizationServers: ['https://id.desk.example'],
  scopesSupported: ['notes:read', 'notes:write'],
};

/** Host code that throws when listing tools (a database outage), on both twins. */
const broken = { listing: false };

/** The approval desk behind tokens: full rights, read-only OAuth scopes (step-up), revoked; anything else 401. */
function deskServer(reported: Error[]): GatehouseServer<string> {
  const desk = pipelineDesk({ notifyApproval: 'person' });
  const authenticate: Authenticate<Right> = async ({ token }) => {
    if (token === REVOKED) return { ok: false, status: 403, reason: 'This token was revoked.' };
    if (token === TOKEN) return { ok: true, connection: connection() };
    if (token !== SCOPED) return { ok: false, status: 401, reason: 'Unknown token.' };
    const scoped: Connection<Right> = {
      ...connection(),
      rights: new Set<Right>(['notes.read']),
      scope: {
        listed: new Set<Right>(['notes.read', 'notes.write']),
        scopesFor: (rights) => (rights.includes('notes.write') ? ['notes:write'] : ['notes:read']),
      },
    };
    return { ok: true, connection: scoped };
  };
  const server: GatehouseServer<Right> = {
    ...desk.server,
    listTools: async (who) => {
      if (broken.listing) throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db:5432/prod');
      return desk.server.listTools(who);
    },
    authenticate,
    onError: (error: Error) => void reported.push(error),
  };
  return server as unknown as GatehouseServer<string>;
}

const reportedOn: Error[] = [];
let built = 0;
const twins = nativeTwins(() => deskServer(built++ === 0 ? reportedOn : []), { oauth: OAUTH });
afterAll(() => twins.restore());

const headersFor = (method: string, name?: string, extra: Record<string, string> = {}) => ({
  host: 'localhost',
  authorization: `Bearer ${TOKEN}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': ERA,
  'mcp-method': method,
  ...(name === undefined ? {} : { 'mcp-name': name }),
  ...extra,
});
let nextId = 1;
const rpc = (method: string, params: Record<string, unknown>, meta: object = ENVELOPE) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  params: { ...params, _meta: meta },
});
const call = (name: string, args: unknown, extra: Record<string, unknown> = {}, meta: object = ENVELOPE) => ({
  headers: headersFor('tools/call', name),
  body: rpc('tools/call', { name, arguments: args, ...extra }, meta),
});

/** Sends one request to both twins: the answers agree, and the native path answered it or not as stated. */
async function same(request: TwinRequest, native: boolean) {
  const exchange = await twins.send(request);
  expect(exchange.differences).toEqual([]);
  expect(exchange.native).toBe(native);
  return exchange;
}
const resultOf = (text: string) => JSON.parse(text).result as Record<string, unknown>;

describe('createHttpHandler native path: the same bytes as the SDK', () => {
  it('answers server/discover and tools/list natively, identical to the SDK', async () => {
    const discover = await same(
      { headers: headersFor('server/discover'), body: rpc('server/discover', {}) },
      true,
    );
    expect(resultOf(discover.text)).toMatchObject({ supportedVersions: [ERA], resultType: 'complete' });
    const list = await same({ headers: headersFor('tools/list'), body: rpc('tools/list', {}) }, true);
    const names = (resultOf(list.text).tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['find_notes', 'add_note', 'notify_owner', 'confirm_action']),
    );
  });

  it('answers a successful read, a write and its replay natively, identical to the SDK', async () => {
    await same(call('find_notes', { query: 'Boiler' }), true);
    const write = { ...call('add_note', { text: 'parity note' }) };
    const first = await same(write, true);
    expect(resultOf(first.text).structuredContent).toMatchObject({ status: 'ok' });
    const again = await same({ ...write, body: { ...(write.body as object), id: nextId++ } }, true);
    expect(resultOf(again.text).structuredContent).toMatchObject({ replayed: true });
  });

  it('answers tool errors natively: unknown tool, invalid and unknown arguments, a missing argument object', async () => {
    for (const request of [
      call('no_such_tool', {}),
      call('find_notes', { query: 42 }),
      call('find_notes', { query: 'x', workspace_id: 'w2' }),
      call('find_notes', undefined),
      call('add_note', { text: '' }),
    ]) {
      const exchange = await same(request, true);
      expect(resultOf(exchange.text).isError, exchange.text).toBe(true);
    }
    // a long argument echoed in an error is cut to 200 characters, on both paths alike
    const long = await same(call(`${'t'.repeat(300)}`, {}), true);
    expect(resultOf(long.text).isError).toBe(true);
  });

  it('answers a string id and trace context natively', async () => {
    const body = { ...rpc('tools/call', { name: 'find_notes', arguments: { query: 'B' } }), id: 'req-α' };
    await same({ headers: headersFor('tools/call', 'find_notes'), body }, true);
    const traced = { ...ENVELOPE, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await same(call('find_notes', { query: 'B' }, {}, traced), true);
  });

  it('answers an unexpected failure as the bare internal error, reported to onError', async () => {
    const before = reportedOn.length;
    const failing = { headers: headersFor('tools/list'), body: rpc('tools/list', {}) };
    broken.listing = true;
    const exchange = await same(failing, true);
    broken.listing = false;
    expect(JSON.parse(exchange.text).error, exchange.text).toEqual({
      code: -32603,
      message: 'Internal error',
    });
    expect(reportedOn.length).toBe(before + 1);
  });

  it('asks for a person’s approval by URL elicitation, and answers the MRTR retries, identical to the SDK', async () => {
    const without = await same(call('notify_owner', { note_id: 'n1' }), true);
    expect(resultOf(without.text).structuredContent).toMatchObject({ approval: 'person' });
    const asked = await same(call('notify_owner', { note_id: 'n1' }, {}, ELICITING), true);
    const first = resultOf(asked.text);
    expect(first.resultType).toBe('input_required');
    const state = first.requestState as string;
    const accepted = { approval: { action: 'accept' } };
    const pending = await same(
      call('notify_owner', { note_id: 'n1' }, { requestState: state, inputResponses: accepted }, ELICITING),
      true,
    );
    expect(resultOf(pending.text).resultType).toBe('input_required');
    const declined = await same(
      call(
        'notify_owner',
        { note_id: 'n1' },
        { requestState: state, inputResponses: { approval: { action: 'decline' } } },
        ELICITING,
      ),
      true,
    );
    expect(resultOf(declined.text).resultType).toBe('complete');
  });

  it('hands everything else to the SDK, whose answers stay the same', async () => {
    const list = rpc('tools/list', {});
    const cases: [string, TwinRequest][] = [
      [
        'a Mcp-Name that disagrees with the body',
        { ...call('find_notes', { query: 'B' }), headers: headersFor('tools/call', 'add_note') },
      ],
      ['no Mcp-Name', { ...call('find_notes', { query: 'B' }), headers: headersFor('tools/call') }],
      ['an Mcp-Method that disagrees', { headers: headersFor('tools/call'), body: rpc('tools/list', {}) }],
      ['no Mcp-Method', { headers: headersFor('tools/list', undefined, { 'mcp-method': '' }), body: list }],
      [
        'a version header that disagrees with _meta',
        {
          headers: headersFor('tools/list', undefined, { 'mcp-protocol-version': '2025-11-25' }),
          body: rpc('tools/list', {}),
        },
      ],
      [
        'the 2026 header without the envelope',
        {
          headers: headersFor('tools/list'),
          body: { jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} },
        },
      ],
      [
        'an envelope with an unknown revision',
        {
          headers: headersFor('tools/list', undefined, { 'mcp-protocol-version': '2027-01-01' }),
          body: rpc(
            'tools/list',
            {},
            { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' },
          ),
        },
      ],
      [
        'an envelope without client info',
        {
          headers: headersFor('tools/list'),
          body: rpc(
            'tools/list',
            {},
            {
              'io.modelcontextprotocol/protocolVersion': ERA,
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          ),
        },
      ],
      [
        'a log level in the envelope',
        {
          headers: headersFor('tools/list'),
          body: rpc('tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'debug' }),
        },
      ],
      ['a progress token', call('find_notes', { query: 'B' }, {}, { ...ENVELOPE, progressToken: 7 })],
      ['a cursor', { headers: headersFor('tools/list'), body: rpc('tools/list', { cursor: 'abc' }) }],
      [
        'a base64 Mcp-Name',
        {
          ...call('find_notes', { query: 'B' }),
          headers: headersFor('tools/call', `=?base64?${Buffer.from('find_notes').toString('base64')}?=`),
        },
      ],
      ['a non-string request state', call('notify_owner', { note_id: 'n1' }, { requestState: 7 }, ELICITING)],
      [
        'a 2025-era request',
        {
          headers: { ...headersFor('tools/list'), 'mcp-protocol-version': '2025-11-25', 'mcp-method': '' },
          body: { jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} },
        },
      ],
      [
        'a notification',
        {
          headers: headersFor('notifications/cancelled'),
          body: {
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: 1, _meta: ENVELOPE },
          },
        },
      ],
      ['another method', { headers: headersFor('resources/list'), body: rpc('resources/list', {}) }],
      [
        'a text/plain content type',
        {
          headers: headersFor('tools/list', undefined, { 'content-type': 'text/plain' }),
          body: rpc('tools/list', {}),
        },
      ],
      ['a GET', { method: 'GET', headers: headersFor('tools/list') }],
      ['a body that is no JSON-RPC', { headers: headersFor('tools/list'), body: { hello: 'world' } }],
    ];
    for (const [label, request] of cases) {
      const exchange = await twins.send(request);
      expect(exchange.differences, label).toEqual([]);
      expect(exchange.native, label).toBe(false);
    }
  });

  it('hands a call whose arguments hold a __proto__ key to the SDK, whose parse drops that key', async () => {
    const kept = await twins.send(call('find_notes', JSON.parse('{"query":"B","__proto__":"x"}')));
    expect(kept.differences).toEqual([]);
    expect(kept.native).toBe(false);
    expect(resultOf(kept.text).isError).toBeUndefined();
    const only = await twins.send(call('find_notes', JSON.parse('{"__proto__":{"query":"B"}}')));
    expect(only.differences).toEqual([]);
    expect(only.native).toBe(false);
    // deeper down the key stays, and the tool refuses it on both paths alike
    const nested = await same(call('find_notes', JSON.parse('{"query":"B","x":{"__proto__":{}}}')), true);
    expect(resultOf(nested.text).isError).toBe(true);
  });

  it('answers an SSE-only Accept and a missing Accept natively, as the SDK does', async () => {
    await same(
      {
        ...call('find_notes', { query: 'B' }),
        headers: headersFor('tools/call', 'find_notes', { accept: 'text/event-stream' }),
      },
      true,
    );
    const { accept: _, ...noAccept } = headersFor('tools/list');
    await same({ headers: noAccept, body: rpc('tools/list', {}) }, true);
  });

  it('refuses in admission before either path: 401, 403, insufficient_scope, a batch, an oversized id', async () => {
    const cases: TwinRequest[] = [
      {
        headers: headersFor('tools/list', undefined, { authorization: 'Bearer nope_0000' }),
        body: rpc('tools/list', {}),
      },
      { headers: headersFor('tools/list', undefined, { authorization: '' }), body: rpc('tools/list', {}) },
      {
        headers: headersFor('tools/list', undefined, { authorization: `Bearer ${REVOKED}` }),
        body: rpc('tools/list', {}),
      },
      {
        headers: headersFor('tools/list', undefined, { origin: 'https://evil.example' }),
        body: rpc('tools/list', {}),
      },
      {
        ...call('add_note', { text: 'scoped' }),
        headers: headersFor('tools/call', 'add_note', { authorization: `Bearer ${SCOPED}` }),
      },
      { headers: headersFor('tools/list'), body: [rpc('tools/list', {}), rpc('tools/list', {})] },
      { headers: headersFor('tools/list'), body: { ...rpc('tools/list', {}), id: 'i'.repeat(300) } },
      { headers: headersFor('tools/call', 'find_notes'), rawBody: '{"jsonrpc":' },
    ];
    for (const request of cases) {
      const exchange = await same(request, true);
      expect(exchange.status).toBeGreaterThanOrEqual(400);
    }
    // malformed tools/call params are answered in band by admission, as before
    const malformed = await same(call('find_notes', ['B']), true);
    expect(JSON.parse(malformed.text).error.code).toBe(-32602);
  });
});
