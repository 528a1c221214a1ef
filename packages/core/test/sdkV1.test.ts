/**
 * Adoption on an SDK v1 server: Gatehouse's tools mounted beside two
 * hand-written v1 tools and a resource, on a low-level `Server` and on an
 * `McpServer`, over Streamable HTTP (stateless, and stateful with
 * `Mcp-Session-Id`) behind the admission middleware and over stdio, reached by the
 * SDK v1 client and the SDK v2 client in the 2025 era. Every test asserts
 * what happened to the rows, the audit and the services, not only the reply.
 */
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { hostHeaderValidationResponse, originValidationResponse } from '@modelcontextprotocol/server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { createAdmissionMiddleware, mountGatehouse } from '../src/sdkV1.js';
import { MALFORMED_TOOLS_CALL } from '../src/serve/body.js';
import { checkHost, checkOrigin, LOCAL_HOSTNAMES } from '../src/serve/hostOrigin.js';
import {
  type CarrierName,
  type ClientKind,
  httpHost,
  httpSession,
  openSession,
  type ToolResult,
} from './fixtures/v1Carriers.js';
import {
  ABOUT_URI,
  HOST_TOOLS,
  type HostKind,
  LEAKS,
  type NotesApp,
  notesApp,
  SECRET_ERROR,
  TOKEN_T1,
  TOKEN_T2,
} from './fixtures/v1Notes.js';
import { connection } from './fixtures.js';

const CARRIERS: readonly CarrierName[] = ['http-stateless', 'http-stateful', 'stdio'];
const HOSTS: readonly HostKind[] = ['Server', 'McpServer'];
const CLIENTS: readonly ClientKind[] = ['v1', 'v2'];

const textOf = (result: ToolResult): string => {
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  return content[0]!.text;
};

/** Checks the Gatehouse error envelope (I18, I19) and returns its structured content. */
function errorOf(result: ToolResult) {
  expect(result.isError).toBe(true);
  const text = textOf(result);
  expect(text.startsWith('Error:')).toBe(true);
  expect(JSON.parse(text.split('\n').at(-1)!)).toEqual(result.structuredContent);
  return result.structuredContent as { error: { code: string; details: Record<string, unknown> } };
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const expectValid = (schema: unknown, value: unknown) => {
  const validate = ajv.compile(schema as object);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
};

/** The names Gatehouse itself shows the t1 connection, built-ins included. */
const gatehouseNames = async (app: NotesApp) =>
  (await app.server.listTools(connection({ connectionId: 'conn_t1' }))).map((t) => t.name);

const auditedWrites = (app: NotesApp) => app.audit.rows.filter((r) => r.action === 'add_note');

for (const carrier of CARRIERS) {
  for (const host of HOSTS) {
    describe.each(CLIENTS)(`mountGatehouse over ${carrier} on a ${host}, SDK %s client`, (client) => {
      it('lists Gatehouse’s visible tools and the host’s own tools together', async () => {
        const app = notesApp();
        await using session = await openSession(carrier, app, host, client, TOKEN_T1);
        const tools = await session.listTools();
        expect(tools.map((t) => t.name)).toEqual([...(await gatehouseNames(app)), 'echo', 'word_count']);
        expect(tools.map((t) => t.name)).toContain('add_note');
        const create = tools.find((t) => t.name === 'add_note') as { inputSchema?: object };
        expect(create.inputSchema).toMatchObject({ additionalProperties: false });
        expect(app.calls()).toEqual([]);
        expect(app.hostCalls).toEqual([]);
      });

      it('creates exactly one note through a Gatehouse tool, in the Gatehouse envelope, audited once', async () => {
        const app = notesApp();
        await using session = await openSession(carrier, app, host, client, TOKEN_T1);
        const schema = (await session.listTools()).find((t) => t.name === 'add_note')?.outputSchema;

        const result = await session.callTool('add_note', { text: 'buy milk' });

        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({ status: 'ok', result: { id: 'n3', text: 'buy milk' } });
        expect(textOf(result)).toBe(JSON.stringify(result.structuredContent));
        expectValid(schema, result.structuredContent);
        expect(app.rows.filter((r) => r.text === 'buy milk')).toEqual([
          { id: 'n3', tenant: 't1', text: 'buy milk', secret: 'DECOY-SECRET' },
        ]);
        expect(app.calls()).toEqual(['create:buy milk']);
        expect(auditedWrites(app)).toMatchObject([
          { channel: 'mcp', connectionId: 'conn_t1', tenantId: 't1' },
        ]);
        expect(app.hostCalls).toEqual([]);
      });

      it('refuses an unknown argument with the allowed names and writes nothing (I3, I14)', async () => {
        const app = notesApp();
        await using session = await openSession(carrier, app, host, client, TOKEN_T1);
        await session.listTools();

        const result = await session.callTool('add_note', { text: 'buy milk', workspace_id: 't2' });

        const error = errorOf(result);
        expect(error.error.code).toBe('unknown_arguments');
        expect(error.error.details).toMatchObject({
          unknown: ['workspace_id'],
          allowed: ['text', 'idempotency_key'],
        });
        expect(app.rows).toHaveLength(2);
        expect(app.services).toEqual([]);
        expect(auditedWrites(app)).toEqual([]);
      });

      it('hides an internal error behind a correlation id and names no cause', async () => {
        const app = notesApp();
        await using session = await openSession(carrier, app, host, client, TOKEN_T1);
        await session.listTools();

        const result = await session.callTool('note_stats', { query: 'milk' });

        const error = errorOf(result);
        expect(error.error.code).toBe('internal_error');
        for (const leak of LEAKS) expect(JSON.stringify(result)).not.toContain(leak);
        expect(app.calls()).toEqual(['stats:milk']);
        expect(app.internalErrors).toEqual([new Error(SECRET_ERROR)]);
      });

      it('runs the host’s own tools and resource beside Gatehouse’s, without touching Gatehouse’s services', async () => {
        const app = notesApp();
        await using session = await openSession(carrier, app, host, client, TOKEN_T1);

        const echoed = await session.callTool('echo', { text: 'hello there' });
        const counted = await session.callTool('word_count', { text: 'one two three' });

        expect(textOf(echoed)).toBe('hello there');
        expect(textOf(counted)).toBe('3');
        expect(app.hostCalls.map((c) => [c.tool, c.text])).toEqual([
          ['echo', 'hello there'],
          ['word_count', 'one two three'],
        ]);
        expect(await session.readResource(ABOUT_URI)).toMatchObject([{ text: 'A notes server.' }]);
        expect(app.services).toEqual([]);
        expect(app.rows).toHaveLength(2);
      });

      it('authenticates every tools request and applies a removed right to the very next call (I4, I7)', async () => {
        const app = notesApp();
        await using session = await openSession(carrier, app, host, client, TOKEN_T1);
        const before = app.authCalls.length;
        await session.callTool('add_note', { text: 'first' });
        await session.callTool('echo', { text: 'host' });
        expect(app.authCalls.length - before).toBe(2);

        app.grants.get(TOKEN_T1)!.rights = ['notes.read'];
        const refused = await session.callTool('add_note', { text: 'second' });

        const error = errorOf(refused);
        expect(error.error.code).toBe('missing_right');
        expect(app.rows.map((r) => r.text)).toEqual(['groceries for t1', 'groceries for t2', 'first']);
        expect(app.calls()).toEqual(['create:first']);
        expect(auditedWrites(app)).toHaveLength(1);
        expect((await session.listTools()).map((t) => t.name)).not.toContain('add_note');
      });
    });
  }
}

describe.each(CLIENTS)('mountGatehouse on a stateful Streamable HTTP session, SDK %s client', (client) => {
  const openStateful = async (app: NotesApp) => {
    const host = await httpHost(app, 'McpServer', 'stateful');
    const session = await httpSession(host.url, TOKEN_T1, client);
    await session.callTool('add_note', { text: 'before' });
    expect(host.sessions.size).toBe(1);
    session.exchanges.length = 0;
    return {
      session,
      url: host.url,
      sessionId: [...host.sessions.keys()][0],
      async [Symbol.asyncDispose]() {
        await session[Symbol.asyncDispose]();
        await host[Symbol.asyncDispose]();
      },
    };
  };
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: unknown) => e,
    );

  it('refuses a right removed mid-session on the next call of the same session (I4)', async () => {
    const app = notesApp();
    await using opened = await openStateful(app);
    const { session, sessionId } = opened;
    app.grants.get(TOKEN_T1)!.rights = ['notes.read'];

    const refused = await session.callTool('add_note', { text: 'after' });

    expect(errorOf(refused).error.code).toBe('missing_right');
    expect(session.exchanges.at(-1)).toMatchObject({ rpc: ['tools/call'], sessionId, status: 200 });
    expect(app.rows.map((r) => r.text)).toEqual(['groceries for t1', 'groceries for t2', 'before']);
    expect(auditedWrites(app)).toHaveLength(1);
  });

  it('binds each request on a session to its own credential, never to the session’s first one (I3, I4)', async () => {
    const app = notesApp();
    await using opened = await openStateful(app);
    const other = await raw(
      opened.url,
      { authorization: `Bearer ${TOKEN_T2}`, 'mcp-session-id': opened.sessionId! },
      'find_notes',
      { query: 'groceries' },
    );
    expect(other.status).toBe(200);
    expect(rpcOf(other).result?.structuredContent).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n2', text: 'groceries for t2' }] },
    });
    expect(app.services.map((s) => s.connection.tenantId)).toEqual(['t1', 't2']);
  });

  it('answers 401 to the next request of an open session once the token is revoked (I4, I5)', async () => {
    const app = notesApp();
    await using opened = await openStateful(app);
    const { session, sessionId } = opened;
    app.grants.delete(TOKEN_T1);

    expect(await rejection(session.callTool('add_note', { text: 'after' }))).toBeInstanceOf(Error);
    expect(await rejection(session.callTool('echo', { text: 'host tool too' }))).toBeInstanceOf(Error);

    const posts = session.exchanges.filter((e) => e.method === 'POST');
    expect(posts).toMatchObject([
      { rpc: ['tools/call'], sessionId, status: 401 },
      { rpc: ['tools/call'], sessionId, status: 401 },
    ]);
    expect(app.rows.map((r) => r.text)).toEqual(['groceries for t1', 'groceries for t2', 'before']);
    expect(app.calls()).toEqual(['create:before']);
    expect(app.hostCalls).toEqual([]);
  });

  it('answers 503 with Retry-After on an open session while the kill switch is on, then serves it again (I6)', async () => {
    const app = notesApp();
    await using opened = await openStateful(app);
    const { session, sessionId } = opened;
    const authCalls = app.authCalls.length;
    app.killSwitch.on = true;

    expect(await rejection(session.callTool('add_note', { text: 'paused' }))).toBeInstanceOf(Error);
    expect(session.exchanges.at(-1)).toMatchObject({ sessionId, status: 503, retryAfter: '30' });
    expect(app.authCalls).toHaveLength(authCalls);
    expect(app.calls()).toEqual(['create:before']);

    app.killSwitch.on = false;
    const resumed = await session.callTool('add_note', { text: 'resumed' });
    expect(resumed.isError).toBeFalsy();
    expect(session.exchanges.at(-1)).toMatchObject({ sessionId, status: 200 });
    expect(app.rows.map((r) => r.text)).toEqual([
      'groceries for t1',
      'groceries for t2',
      'before',
      'resumed',
    ]);
  });
});

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A raw JSON-RPC `tools/call` over node:http, which (unlike fetch) may set any `Host`. */
function raw(
  url: URL,
  headers: Record<string, string>,
  name = 'add_note',
  args: object = { text: 'raw note' },
) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC message of a JSON or SSE body. */
const rpcOf = (answer: RawAnswer) =>
  JSON.parse(
    answer.body.includes('data:')
      ? answer.body
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .at(-1)!
          .slice(5)
      : answer.body,
  ) as { result?: ToolResult; error?: { code: number; message: string; data?: unknown } };

const bearer = { authorization: `Bearer ${TOKEN_T1}` };

describe('createAdmissionMiddleware', () => {
  it('runs a raw tools/call with a valid token, so the refusals below are the gate at work', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless');
    const answer = await raw(host.url, bearer);
    expect(answer.status).toBe(200);
    expect(rpcOf(answer).result?.isError).toBeFalsy();
    expect(app.calls()).toEqual(['create:raw note']);
    expect(auditedWrites(app)).toHaveLength(1);
  });

  it('answers 401 with a challenge naming no error code when Authorization is missing (RFC 6750 §3.1)', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless');
    const answer = await raw(host.url, {});
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="mcp"');
    expect(rpcOf(answer).error).toMatchObject({ code: -32041, data: { status: 401 } });
    expect(app.authCalls).toEqual([]);
  });

  it.each([
    ['Basic', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['two words', { authorization: `Bearer ${TOKEN_T1} extra` }],
    ['empty', { authorization: 'Bearer' }],
  ])(
    'answers 401 with a Bearer challenge to a %s Authorization, without asking the authenticator',
    async (_, headers) => {
      const app = notesApp();
      await using host = await httpHost(app, 'Server', 'stateless');
      const answer = await raw(host.url, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="mcp", error="invalid_token"');
      expect(rpcOf(answer).error).toMatchObject({ code: -32041, data: { status: 401 } });
      expect(app.authCalls).toEqual([]);
      expect(app.services).toEqual([]);
    },
  );

  it('answers 401 with resource metadata for a token the authenticator does not know (I5)', async () => {
    const app = notesApp();
    const resourceMetadataUrl = 'https://notes.example/.well-known/oauth-protected-resource';
    await using host = await httpHost(app, 'Server', 'stateless', { resourceMetadataUrl });
    const answer = await raw(host.url, { authorization: 'Bearer ghmcp_unknown_0000' });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toContain(`resource_metadata="${resourceMetadataUrl}"`);
    expect(app.authCalls).toEqual(['ghmcp_unknown_0000']);
    expect(app.rows).toHaveLength(2);
  });

  it('hands the tenant named by the transport to the authenticator, which refuses a foreign one (I3)', async () => {
    const app = notesApp();
    const tenantFrom = (req: { headers: Record<string, unknown> }) => req.headers['x-workspace'] as string;
    await using host = await httpHost(app, 'Server', 'stateless', { tenantFrom });
    const foreign = await raw(host.url, { ...bearer, 'x-workspace': 't2' }, 'add_note', { text: 'into t2' });
    const own = await raw(host.url, { ...bearer, 'x-workspace': 't1' }, 'add_note', { text: 'into t1' });
    expect([foreign.status, own.status]).toEqual([403, 200]);
    expect(app.rows.filter((r) => r.text.startsWith('into'))).toMatchObject([
      { tenant: 't1', text: 'into t1' },
    ]);
  });

  it('answers 403 to a foreign Origin or Host before the authenticator is asked (I5)', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless', { allowedHosts: ['127.0.0.1'] });
    const origin = await raw(host.url, { ...bearer, origin: 'https://evil.example' });
    const rebound = await raw(host.url, { ...bearer, host: 'attacker.example' });
    expect([origin.status, rebound.status]).toEqual([403, 403]);
    expect(app.authCalls).toEqual([]);
    const local = await raw(host.url, { ...bearer, origin: 'http://localhost:5173' });
    expect(local.status).toBe(200);
    expect(app.calls()).toEqual(['create:raw note']);
  });

  it('answers 503 with Retry-After while the kill switch is on, before credentials are read (I6)', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless');
    app.killSwitch.on = true;
    const answer = await raw(host.url, bearer);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('30');
    expect(rpcOf(answer).error).toMatchObject({ code: -32053, data: { retry_after_seconds: 30 } });
    expect(app.authCalls).toEqual([]);
    expect(app.services).toEqual([]);
  });

  it('answers 503 with Retry-After naming no cause, and reports it to onError, when the authenticator throws', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless');
    app.broken.authenticate = true;
    const answer = await raw(host.url, bearer);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32053,
        message: 'Temporarily unavailable; retry shortly.',
        data: { status: 503, retry_after_seconds: 5 },
      },
    });
    expect(app.reported.map((e) => e.message)).toEqual([SECRET_ERROR]);
    expect(app.services).toEqual([]);
  });

  it('keeps the auth an earlier middleware set, adding the connection for Gatehouse’s tools', async () => {
    const app = notesApp();
    const before = (req: { auth?: AuthInfo }) => {
      req.auth = { token: 'host-session', clientId: 'host-client', scopes: ['host'] };
    };
    await using host = await httpHost(app, 'Server', 'stateless', { before });
    expect((await raw(host.url, bearer, 'echo', { text: 'hi' })).status).toBe(200);
    expect((await raw(host.url, bearer)).status).toBe(200);
    expect(app.hostCalls).toEqual([{ tool: 'echo', text: 'hi', clientId: 'host-client' }]);
    expect(app.calls()).toEqual(['create:raw note']);
  });

  it('refuses empty allowedHosts or allowedOrigins lists', () => {
    const app = notesApp();
    expect(() => createAdmissionMiddleware(app.server, { allowedHosts: [] })).toThrow(/may not be empty/);
    expect(() => createAdmissionMiddleware(app.server, { allowedOrigins: [] })).toThrow(/may not be empty/);
  });
});

describe('checkHost', () => {
  it.each(['localhost:3000', '127.0.0.1', '[::1]:8080', 'attacker.example', '', 'bad host'])(
    'decides %j as the SDK v2 gate does',
    (host) => {
      const request = new Request('http://x/mcp', { headers: host ? { host } : {} });
      const sdk = hostHeaderValidationResponse(request, [...LOCAL_HOSTNAMES]);
      expect(checkHost(request.headers.get('host'), LOCAL_HOSTNAMES)?.status).toBe(sdk?.status);
    },
  );
});

describe('checkOrigin', () => {
  it.each([
    'http://localhost:5173',
    'https://127.0.0.1',
    'https://evil.example',
    'null',
    'moz-extension://abc',
    'chrome-extension://abc',
    '',
  ])('decides %j as the SDK v2 gate does', (origin) => {
    const allowed = [...LOCAL_HOSTNAMES, 'moz-extension://*'];
    const request = new Request('http://localhost/mcp', { headers: origin ? { origin } : {} });
    const sdk = originValidationResponse(request, allowed);
    expect(checkOrigin(request.headers.get('origin'), allowed)?.status).toBe(sdk?.status);
  });
});

/** A v1 client in process; `authInfo` (if given) rides on every message, as the HTTP transport passes it. */
async function inProcess(server: Pick<Server, 'connect'>, authInfo?: () => AuthInfo | undefined) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (authInfo) {
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => send(message, { ...options, authInfo: authInfo() });
  }
  await server.connect(serverSide);
  const client = new Client({ name: 'in-process', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** A low-level host whose own tools are given as a list of pages and one call handler. */
function pagedHost(app: NotesApp, pages: string[][], call = (name: string) => name) {
  const server = new Server({ name: 'notes', version: '1.0.0' });
  mountGatehouse(server, app.server, { credential: { token: TOKEN_T1 } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const index = Number(request.params?.cursor ?? 0);
    const tools = (pages[index] ?? []).map((name) => ({ ...HOST_TOOLS[0]!, name }));
    return { tools, ...(index + 1 < pages.length ? { nextCursor: String(index + 1) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    app.hostCalls.push({ tool: request.params.name, text: '', clientId: undefined });
    return { content: [{ type: 'text', text: call(request.params.name) }] };
  });
  return server;
}

const rpcError = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
};

describe('mountGatehouse', () => {
  it('refuses a server whose tool handlers are set already, since the SDK cannot hand them back', () => {
    const app = notesApp();
    const low = new Server({ name: 'x', version: '1' }, { capabilities: { tools: {} } });
    low.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
    const registered = new McpServer({ name: 'x', version: '1' });
    registered.registerTool('echo', {}, async () => ({ content: [] }));
    const declared = new McpServer({ name: 'x', version: '1' }, { capabilities: { tools: {} } });
    for (const target of [low, registered, declared]) {
      expect(() => mountGatehouse(target, app.server)).toThrow(/already has a tools\/list handler/);
    }
  });

  it('refuses a connected server, a second mount and an empty credential', async () => {
    const app = notesApp();
    const connected = new Server({ name: 'x', version: '1' });
    await connected.connect(InMemoryTransport.createLinkedPair()[1]);
    expect(() => mountGatehouse(connected, app.server)).toThrow(/before connect/);
    const twice = new Server({ name: 'x', version: '1' });
    mountGatehouse(twice, app.server);
    expect(() => mountGatehouse(twice, app.server)).toThrow(/mounted already/);
    const noToken = new Server({ name: 'x', version: '1' });
    expect(() => mountGatehouse(noToken, app.server, { credential: { token: '' } })).toThrow(
      /token is empty/,
    );
  });

  it('shows and runs a visible Gatehouse tool over a host tool of the same name, reporting the clash once', async () => {
    const app = notesApp();
    const client = await inProcess(pagedHost(app, [['find_notes', 'echo']]));
    for (let i = 0; i < 2; i++) {
      const { tools } = await client.listTools();
      expect(tools.filter((t) => t.name === 'find_notes')).toHaveLength(1);
      expect(tools.find((t) => t.name === 'find_notes')?.outputSchema).toBeDefined();
    }
    const found = await client.callTool({ name: 'find_notes', arguments: { query: 'groceries' } });
    expect(found.structuredContent).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n1', text: 'groceries for t1' }] },
    });
    expect(app.calls()).toEqual(['find:groceries']);
    expect(app.hostCalls).toEqual([]);
    expect(app.reported.map((e) => e.message)).toEqual([
      'mountGatehouse: host tool find_notes is shadowed by the Gatehouse tool of that name.',
    ]);
  });

  it('answers unknown and hidden names with Gatehouse’s reasoned errors, not the host’s (I7)', async () => {
    const app = notesApp();
    app.grants.get(TOKEN_T1)!.rights = ['notes.read'];
    const client = await inProcess(pagedHost(app, [['echo']]));
    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    const hidden = await client.callTool({ name: 'add_note', arguments: { text: 'x' } });
    expect(errorOf(unknown as ToolResult).error.code).toBe('unknown_tool');
    expect(errorOf(hidden as ToolResult).error).toMatchObject({
      code: 'missing_right',
      details: { missing_rights: ['notes.write'] },
    });
    expect(app.hostCalls).toEqual([]);
    expect(app.rows).toHaveLength(2);
  });

  it('leaves a name to the host while Gatehouse hides its own tool of that name from the connection', async () => {
    const app = notesApp();
    app.grants.get(TOKEN_T1)!.rights = ['notes.read'];
    const client = await inProcess(pagedHost(app, [['add_note']], () => 'host add_note'));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'add_note')?.outputSchema).toBeUndefined();
    const result = await client.callTool({ name: 'add_note', arguments: { text: 'x' } });
    expect(result.content).toEqual([{ type: 'text', text: 'host add_note' }]);
    expect(app.hostCalls.map((c) => c.tool)).toEqual(['add_note']);
    expect(app.services).toEqual([]);
  });

  it('answers a call to a disabled McpServer tool with Gatehouse’s unknown_tool, not a "disabled" leak', async () => {
    const app = notesApp();
    const mcp = new McpServer({ name: 'notes', version: '1.0.0' });
    mountGatehouse(mcp, app.server, { credential: { token: TOKEN_T1 } });
    const hidden = mcp.registerTool('internal_report', {}, async () => ({ content: [] }));
    hidden.disable();
    const client = await inProcess(mcp);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('internal_report');
    const result = await client.callTool({ name: 'internal_report', arguments: {} });
    expect(errorOf(result as ToolResult).error.code).toBe('unknown_tool');
    expect(JSON.stringify(result)).not.toContain('disabled');
  });

  it('merges Gatehouse’s tools into the first page of a paginated host list and routes later pages to the host', async () => {
    const app = notesApp();
    const client = await inProcess(pagedHost(app, [['echo'], ['word_count']]));
    const first = await client.listTools();
    expect(first.tools.map((t) => t.name)).toEqual([...(await gatehouseNames(app)), 'echo']);
    expect(first.nextCursor).toBe('1');
    const second = await client.listTools({ cursor: '1' });
    expect(second.tools.map((t) => t.name)).toEqual(['word_count']);
    await client.callTool({ name: 'word_count', arguments: { text: 'a b' } });
    expect(app.hostCalls.map((c) => c.tool)).toEqual(['word_count']);
    expect(app.services).toEqual([]);
  });

  it('answers a host handler’s raw throw with a bare internal error and reports it; an McpError passes', async () => {
    const app = notesApp();
    const client = await inProcess(
      pagedHost(app, [['explode', 'strict']], (name) => {
        if (name === 'strict') throw new McpError(ErrorCode.InvalidParams, 'text is required');
        throw new Error(SECRET_ERROR);
      }),
    );
    const exploded = await rpcError(client.callTool({ name: 'explode', arguments: {} }));
    expect(exploded.code).toBe(-32603);
    for (const leak of LEAKS) expect(JSON.stringify([exploded.message, exploded.data])).not.toContain(leak);
    expect(app.reported.map((e) => e.message)).toEqual([SECRET_ERROR]);
    const strict = await rpcError(client.callTool({ name: 'strict', arguments: {} }));
    expect(strict).toMatchObject({ code: ErrorCode.InvalidParams });
    expect(strict.message).toContain('text is required');
  });

  it('reads the connection from authInfo on every request, caching nothing on the transport', async () => {
    const app = notesApp();
    const server = new Server({ name: 'notes', version: '1.0.0' });
    mountGatehouse(server, app.server);
    let current: AuthInfo | undefined;
    const client = await inProcess(server, () => current);
    const as = (tenant: string): AuthInfo => ({
      token: '[redacted]',
      clientId: 'c',
      scopes: [],
      extra: { 'gatehouse.connection': connection({ connectionId: `conn_${tenant}`, tenantId: tenant }) },
    });
    const find = async () =>
      (await client.callTool({ name: 'find_notes', arguments: { query: 'groceries' } })).structuredContent;

    current = as('t1');
    expect(await find()).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n1', text: 'groceries for t1' }] },
    });
    current = as('t2');
    expect(await find()).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n2', text: 'groceries for t2' }] },
    });
    current = undefined;
    const refused = await rpcError(client.listTools());
    expect(refused).toMatchObject({ code: -32041, data: { status: 401 } });
    expect(app.reported.map((e) => e.message)).toEqual([
      'mountGatehouse: a request arrived without a connection; is the admission middleware mounted?',
    ]);
    expect(app.services.map((s) => s.connection.tenantId)).toEqual(['t1', 't2']);
  });

  it.each(HOSTS)(
    'runs the gate on every stdio request of a %s: kill switch, revocation, failing authenticator',
    async (kind) => {
      const app = notesApp();
      await using session = await openSession('stdio', app, kind, 'v1', TOKEN_T1);
      app.killSwitch.on = true;
      const paused = await rpcError(session.callTool('add_note', { text: 'paused' }));
      expect(paused).toMatchObject({ code: -32053, data: { status: 503, retry_after_seconds: 30 } });
      app.killSwitch.on = false;
      app.broken.authenticate = true;
      const failed = await rpcError(session.listTools());
      expect(failed).toMatchObject({ code: -32053, data: { status: 503, retry_after_seconds: 5 } });
      for (const leak of LEAKS) expect(failed.message).not.toContain(leak);
      app.broken.authenticate = false;
      app.grants.delete(TOKEN_T1);
      const revoked = await rpcError(session.callTool('echo', { text: 'x' }));
      expect(revoked).toMatchObject({ code: -32041, data: { status: 401 } });
      expect(app.reported.map((e) => e.message)).toEqual([SECRET_ERROR]);
      expect(app.services).toEqual([]);
      expect(app.hostCalls).toEqual([]);
    },
  );

  it('refuses to run a Gatehouse tool as a task', async () => {
    const app = notesApp();
    const server = new Server(
      { name: 'notes', version: '1.0.0' },
      { capabilities: { tasks: { requests: { tools: { call: {} } } } } },
    );
    mountGatehouse(server, app.server, { credential: { token: TOKEN_T1 } });
    const client = await inProcess(server);
    const params = { name: 'add_note', arguments: { text: 'as task' }, task: { ttl: 1000 } };
    const refused = await rpcError(client.request({ method: 'tools/call', params }, CallToolResultSchema));
    expect(refused.code).toBe(ErrorCode.InvalidParams);
    expect(refused.message).toContain('Gatehouse tools do not run as tasks.');
    expect(app.rows).toHaveLength(2);
  });

  it('refuses malformed tools/call params as invalid params in one short sentence, not a validator dump', async () => {
    const app = notesApp();
    const server = new Server({ name: 'notes', version: '1.0.0' });
    mountGatehouse(server, app.server, { credential: { token: TOKEN_T1 } });
    const client = await inProcess(server);
    const params = { name: 'add_note', arguments: null } as unknown as { name: string };
    const refused = await rpcError(client.request({ method: 'tools/call', params }, CallToolResultSchema));
    expect(refused.code).toBe(ErrorCode.InvalidParams);
    expect(refused.message).toContain(MALFORMED_TOOLS_CALL);
    expect(refused.message).not.toMatch(/expected|invalid_type/);
    expect(app.rows).toHaveLength(2);
    expect(app.reported).toEqual([]);
  });
});
