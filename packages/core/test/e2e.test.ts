/**
 * End-to-end: the official SDK v2 client against a Gatehouse server, over
 * Streamable HTTP (core's `listen`) and over stdio (core's `serveStdio` on the
 * SDK's stdio framing over in-process streams), in both protocol eras.
 * Every test asserts what happened to the notes rows and the services, not
 * only what the client was told.
 */
import { PassThrough } from 'node:stream';
import {
  Client,
  ProtocolError,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import { createHttpHandler } from '../src/http.js';
import { listen } from '../src/node.js';
import { serveStdio } from '../src/stdio.js';
import {
  ARG_CANARY,
  LEAKS,
  type NotesServer,
  notesServer,
  SECRET_ERROR,
  TOKEN_T1,
  TOKEN_T2,
} from './fixtures/notesServer.js';
import { createRequest } from './fixtures/rawRequest.js';
import { RIGHTS } from './fixtures.js';

/** A connected SDK client and what it sent; disposing it closes client and server side. */
interface Session extends AsyncDisposable {
  readonly client: Client;
  /** Every request the client sent after connecting: the HTTP request, or the JSON-RPC request on stdio. */
  readonly sent: string[];
}

const ERAS = [
  { label: '2025-11-25 (legacy)', mode: 'legacy' as const, era: 'legacy' },
  { label: '2026-07-28', mode: { pin: '2026-07-28' }, era: 'modern' },
] as const;
type EraCase = (typeof ERAS)[number];

const newClient = (era: EraCase) =>
  new Client({ name: 'e2e-client', version: '1.0.0' }, { versionNegotiation: { mode: era.mode } });

const methodsOf = (body: unknown): string[] =>
  (Array.isArray(body) ? body : [body]).flatMap((m: { method?: unknown }) =>
    typeof m.method === 'string' ? [m.method] : [],
  );

/** An SDK client over Streamable HTTP, holding `token`; its connect exchange has settled when this resolves. */
async function httpSession(url: URL, token: string, era: EraCase): Promise<Session> {
  const sent: string[] = [];
  const inflight = new Set<Promise<unknown>>();
  const client = newClient(era);
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: (input, init) => {
      const body = typeof init?.body === 'string' ? methodsOf(JSON.parse(init.body)) : [];
      sent.push(`${init?.method ?? 'GET'} ${body.join(',')}`.trim());
      const response = fetch(input, init);
      const settled = response.then(
        () => undefined,
        () => undefined,
      );
      inflight.add(settled);
      void settled.then(() => inflight.delete(settled));
      return response;
    },
  });
  await client.connect(transport);
  // the 2025 client opens its standalone GET stream (405 here) after connect() resolves; let it settle
  if (era.mode === 'legacy') await vi.waitFor(() => expect(sent).toContain('GET'));
  await Promise.all(inflight);
  expect(client.getProtocolEra()).toBe(era.era);
  sent.length = 0;
  return { client, sent, [Symbol.asyncDispose]: () => client.close() };
}

/** core's `serveStdio` on the SDK's stdio framing over two in-process pipes; the client speaks the same framing. */
async function stdioSession(app: NotesServer, token: string, era: EraCase): Promise<Session> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const handle = serveStdio(app.server, {
    token,
    transport: new StdioServerTransport(toServer, toClient),
  });
  const client = newClient(era);
  const wire = new StdioServerTransport(toClient, toServer);
  const sent: string[] = [];
  const send = wire.send.bind(wire);
  wire.send = (message) => {
    sent.push(...methodsOf(message).filter((m) => !m.startsWith('notifications/')));
    return send(message);
  };
  await client.connect(wire);
  expect(client.getProtocolEra()).toBe(era.era);
  sent.length = 0;
  return {
    client,
    sent,
    async [Symbol.asyncDispose]() {
      await client.close();
      await handle.close();
    },
  };
}

interface Carrier {
  readonly name: 'listen' | 'serveStdio';
  open(app: NotesServer, token: string, era: EraCase): Promise<Session>;
}

/** Opens a session on a fresh HTTP listener (closed with the session) or on stdio. */
const CARRIERS: readonly Carrier[] = [
  {
    name: 'listen',
    async open(app, token, era) {
      const listening = await listen(app.server);
      try {
        const session = await httpSession(listening.url, token, era);
        return {
          ...session,
          async [Symbol.asyncDispose]() {
            await session[Symbol.asyncDispose]();
            await listening.close();
          },
        };
      } catch (error) {
        await listening.close();
        throw error;
      }
    },
  },
  { name: 'serveStdio', open: stdioSession },
];

interface ToolShape {
  name: string;
  inputSchema: { additionalProperties?: unknown };
  outputSchema?: object;
  annotations?: { readOnlyHint?: boolean };
}

const textOf = (result: { content?: unknown }): string => {
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe('text');
  return content[0]!.text;
};

/** Checks the error envelope (I18, I19) and returns its structured content. */
function errorOf(result: { content?: unknown; structuredContent?: unknown; isError?: unknown }) {
  expect(result.isError).toBe(true);
  const text = textOf(result);
  expect(text.startsWith('Error:')).toBe(true);
  const lines = text.split('\n');
  expect(JSON.parse(lines[lines.length - 1]!)).toEqual(result.structuredContent);
  return result.structuredContent as {
    status: 'error';
    error: { code: string; message: string; fix: string; details: Record<string, unknown> };
  };
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
async function outputSchemaOf(client: Client, name: string): Promise<object> {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === name);
  expect(tool?.outputSchema).toBeDefined();
  return tool!.outputSchema as object;
}
function expectValid(schema: object, value: unknown): void {
  const validate = ajv.compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
}

for (const carrier of CARRIERS) {
  describe(carrier.name, () => {
    describe.each(ERAS)('with the SDK v2 client in the $label era', (era) => {
      it('lists the visible tools with strict input schemas, output schemas and effect annotations', async () => {
        const app = notesServer();
        await using session = await carrier.open(app, TOKEN_T1, era);
        const { tools } = (await session.client.listTools()) as unknown as { tools: ToolShape[] };
        expect(tools.map((t) => t.name).sort()).toEqual([
          'add_note',
          'find_notes',
          'list_recent_changes',
          'note_stats',
        ]);
        for (const tool of tools) {
          expect(tool.inputSchema.additionalProperties).toBe(false);
          expect(tool.outputSchema).toMatchObject({ type: 'object' });
        }
        const byName = new Map(tools.map((t) => [t.name, t]));
        expect(byName.get('find_notes')?.annotations).toMatchObject({
          readOnlyHint: true,
          destructiveHint: false,
        });
        expect(byName.get('add_note')?.annotations).toMatchObject({
          readOnlyHint: false,
          destructiveHint: false,
        });
        expect(app.calls()).toEqual([]);
      });

      it('creates exactly one row and returns text equal to structuredContent, valid against the outputSchema', async () => {
        const app = notesServer();
        await using session = await carrier.open(app, TOKEN_T1, era);
        const schema = await outputSchemaOf(session.client, 'add_note');

        const result = await session.client.callTool({
          name: 'add_note',
          arguments: { text: 'buy milk' },
        });

        expect(result.isError).toBeFalsy();
        expect(textOf(result)).toBe(JSON.stringify(result.structuredContent));
        expect(result.structuredContent).toEqual({ status: 'ok', result: { id: 'n3', text: 'buy milk' } });
        expectValid(schema, result.structuredContent);
        expect(app.rows).toHaveLength(3);
        expect(app.rows.filter((r) => r.text === 'buy milk')).toEqual([
          { id: 'n3', tenant: 't1', text: 'buy milk', secret: 'DECOY-SECRET' },
        ]);
        expect(app.calls()).toEqual(['create:buy milk']);
        expect(app.reported).toEqual([]);

        const found = await session.client.callTool({ name: 'find_notes', arguments: { query: 'milk' } });
        expect(textOf(found)).toBe(JSON.stringify(found.structuredContent));
        expectValid(await outputSchemaOf(session.client, 'find_notes'), found.structuredContent);
        expect(found.structuredContent).toEqual({
          status: 'ok',
          result: { notes: [{ id: 'n3', text: 'buy milk' }] },
        });
      });

      it('refuses an unknown argument with the allowed names and writes nothing (I3, I14)', async () => {
        const app = notesServer();
        await using session = await carrier.open(app, TOKEN_T1, era);
        const schema = await outputSchemaOf(session.client, 'add_note');

        const result = await session.client.callTool({
          name: 'add_note',
          arguments: { text: 'buy milk', workspace_id: 't2' },
        });

        const error = errorOf(result);
        expect(error.error.code).toBe('unknown_arguments');
        expect(error.error.details).toMatchObject({
          unknown: ['workspace_id'],
          allowed: ['text', 'idempotency_key'],
        });
        expect(textOf(result)).toContain('workspace_id');
        expectValid(schema, result.structuredContent);
        expect(app.rows).toHaveLength(2);
        expect(app.calls()).toEqual([]);
        expect(app.services).toEqual([]);
      });

      it('hides an internal error behind a correlation id and keeps arguments out of the logs (I17)', async () => {
        const app = notesServer();
        await using session = await carrier.open(app, TOKEN_T1, era);

        const schema = await outputSchemaOf(session.client, 'note_stats');
        const result = await session.client.callTool({
          name: 'note_stats',
          arguments: { query: ARG_CANARY },
        });

        const error = errorOf(result);
        expectValid(schema, result.structuredContent);
        expect(error.error.code).toBe('internal_error');
        const correlationId = error.error.details.correlation_id;
        expect(correlationId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
        const wire = JSON.stringify(result);
        for (const leak of [...LEAKS, ARG_CANARY]) expect(wire).not.toContain(leak);

        expect(app.calls()).toEqual([`stats:${ARG_CANARY}`]);
        expect(app.internalErrors).toEqual([{ error: new Error(SECRET_ERROR), correlationId }]);

        expect(app.logs).toEqual([
          {
            level: 'error',
            message: 'tools/call failed',
            record: expect.objectContaining({
              tool: 'note_stats',
              outcome: 'internal_error',
              correlation_id: correlationId,
            }),
          },
        ]);
        const logged = JSON.stringify(app.logs);
        for (const leak of [...LEAKS, ARG_CANARY]) expect(logged).not.toContain(leak);
      });

      it('authenticates every request and applies a removed right to the very next call (I4, I7)', async () => {
        const app = notesServer();
        await using session = await carrier.open(app, TOKEN_T1, era);
        const before = app.authCalls.length;

        await session.client.listTools();
        const afterList = app.authCalls.length;
        await session.client.callTool({ name: 'add_note', arguments: { text: 'first' } });
        const afterFirst = app.authCalls.length;
        await session.client.callTool({ name: 'find_notes', arguments: { query: 'first' } });
        const afterSecond = app.authCalls.length;
        expect([afterList - before, afterFirst - afterList, afterSecond - afterFirst]).toEqual([1, 1, 1]);
        expect(session.sent).toHaveLength(3);
        expect(app.authCalls.every((token) => token === TOKEN_T1)).toBe(true);
        expect(app.rows).toHaveLength(3);

        app.grants.get(TOKEN_T1)!.rights = ['notes.read'];

        const refused = await session.client.callTool({ name: 'add_note', arguments: { text: 'second' } });
        const error = errorOf(refused);
        expect(error.error.code).toBe('missing_right');
        expect(error.error.details.missing_rights).toEqual(['notes.write']);
        expect(app.rows.map((r) => r.text)).not.toContain('second');
        expect(app.calls()).toEqual(['create:first', 'find:first']);

        const { tools } = await session.client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['find_notes', 'list_recent_changes', 'note_stats']);
        const still = await session.client.callTool({ name: 'find_notes', arguments: { query: 'first' } });
        expect(still.isError).toBeFalsy();
      });

      it.each(['authenticate', 'admission'] as const)(
        'answers 503 "temporarily unavailable" naming no cause and reports to onError when the %s hook throws, and serves again once it answers',
        async (hook) => {
          const app = notesServer();
          await using session = await carrier.open(app, TOKEN_T1, era);
          app.broken[hook] = true;

          const error = await session.client.listTools().then(
            () => undefined,
            (e: unknown) => e,
          );

          expect(error).toBeInstanceOf(Error);
          const seen = `${String(error)} ${JSON.stringify(error)}`;
          for (const leak of LEAKS) expect(seen).not.toContain(leak);
          if (error instanceof ProtocolError) {
            expect(error.code).toBe(-32053);
            expect(error.message).toContain('Temporarily unavailable; retry shortly.');
            expect(error.data).toEqual({ status: 503, retry_after_seconds: 5 });
          } else expect((error as SdkHttpError).data).toMatchObject({ status: 503 });
          expect(app.reported.map((e) => e.message)).toContain(SECRET_ERROR);
          expect(app.services).toEqual([]);

          app.broken[hook] = false;
          expect((await session.client.listTools()).tools).toHaveLength(4);
        },
      );

      it.each(['visibility'] as const)(
        'answers a bare internal error and reports the cause to onError when the %s hook throws',
        async (hook) => {
          const app = notesServer();
          await using session = await carrier.open(app, TOKEN_T1, era);
          app.broken[hook] = true;

          const error = await session.client.listTools().then(
            () => undefined,
            (e: unknown) => e,
          );

          expect(error).toBeInstanceOf(Error);
          const seen = `${String(error)} ${JSON.stringify(error)}`;
          for (const leak of LEAKS) expect(seen).not.toContain(leak);
          if (error instanceof ProtocolError) expect(error.code).toBe(-32603);
          else expect((error as SdkHttpError).data).toMatchObject({ status: 500 });
          expect(app.reported.map((e) => e.message)).toContain(SECRET_ERROR);
          expect(app.services).toEqual([]);

          app.broken[hook] = false;
          expect((await session.client.listTools()).tools).toHaveLength(4);
        },
      );
    });
  });
}

/** Sends {@link createRequest} over the network. */
const rawCreate = (url: URL, headers: Record<string, string>, text?: string): Promise<Response> =>
  fetch(createRequest(url, headers, text));

/** The JSON-RPC message in a JSON or SSE response body. */
async function rpcBody(response: Response): Promise<{ result?: { isError?: boolean }; error?: unknown }> {
  const text = await response.text();
  if (response.headers.get('content-type')?.includes('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim());
    return JSON.parse(data[data.length - 1]!);
  }
  return JSON.parse(text);
}

describe('createHttpHandler', () => {
  it('runs a raw 2026-07-28 tools/call with a valid token, so the refusals below are the gate at work', async () => {
    const app = notesServer();
    await using listening = await listen(app.server);
    const response = await rawCreate(listening.url, { authorization: `Bearer ${TOKEN_T1}` });
    expect(response.status).toBe(200);
    const body = await rpcBody(response);
    expect(body.result?.isError).toBeFalsy();
    expect(app.rows.map((r) => r.text)).toContain('raw note');
    expect(app.calls()).toEqual(['create:raw note']);
  });

  it('answers 401 with a Bearer challenge when Authorization is missing, without asking the authenticator', async () => {
    const app = notesServer();
    await using listening = await listen(app.server);
    const response = await rawCreate(listening.url, {});
    expect(response.status).toBe(401);
    // RFC 6750 §3.1: no credentials, so the challenge names no error code
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
    expect(app.authCalls).toEqual([]);
    expect(app.rows).toHaveLength(2);
    expect(app.services).toEqual([]);
  });

  it.each(['Basic dXNlcjpwYXNz', `Bearer ${TOKEN_T1} extra`, 'Bearer', `Token ${TOKEN_T1}`, 'Bearer a"b'])(
    'answers 401 to the malformed Authorization %j',
    async (authorization) => {
      const app = notesServer();
      await using listening = await listen(app.server);
      const response = await rawCreate(listening.url, { authorization });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp", error="invalid_token"');
      expect(app.authCalls).toEqual([]);
      expect(app.rows).toHaveLength(2);
    },
  );

  it('answers 401 for a token the authenticator does not know and 403 for one it revoked', async () => {
    const app = notesServer();
    app.grants.set('ghmcp_revoked_0000', { tenant: 't1', rights: [...RIGHTS], revoked: true });
    await using listening = await listen(app.server);

    const unknown = await rawCreate(listening.url, { authorization: 'Bearer ghmcp_unknown_0000' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="mcp", error="invalid_token"');
    const revoked = await rawCreate(listening.url, { authorization: 'Bearer ghmcp_revoked_0000' });
    expect(revoked.status).toBe(403);
    expect(await revoked.json()).toMatchObject({ error: { message: 'This token was revoked.' } });

    expect(app.authCalls).toEqual(['ghmcp_unknown_0000', 'ghmcp_revoked_0000']);
    expect(app.rows).toHaveLength(2);
    expect(app.services).toEqual([]);
  });

  it('answers 403 to a foreign Origin before the authenticator is called (I5)', async () => {
    const app = notesServer();
    await using listening = await listen(app.server);
    const response = await rawCreate(listening.url, {
      authorization: `Bearer ${TOKEN_T1}`,
      origin: 'https://evil.example',
    });
    expect(response.status).toBe(403);
    expect(app.authCalls).toEqual([]);
    expect(app.rows).toHaveLength(2);
    expect(app.services).toEqual([]);
  });

  it('answers 503 with Retry-After while the kill switch is on, and no tool runs (I6)', async () => {
    const app = notesServer();
    await using listening = await listen(app.server);
    app.killSwitch.on = true;

    const response = await rawCreate(listening.url, { authorization: `Bearer ${TOKEN_T1}` });

    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(await response.json()).toMatchObject({
      error: { message: 'Agent access is paused.', data: { status: 503, retry_after_seconds: 30 } },
    });
    expect(app.authCalls).toEqual([]);
    expect(app.rows).toHaveLength(2);
    expect(app.services).toEqual([]);

    app.killSwitch.on = false;
    expect((await rawCreate(listening.url, { authorization: `Bearer ${TOKEN_T1}` })).status).toBe(200);
    expect(app.rows).toHaveLength(3);
  });

  it('accepts an Origin naming a local host on any port, so the 403 above is the Origin check', async () => {
    const app = notesServer();
    await using listening = await listen(app.server);
    const response = await rawCreate(listening.url, {
      authorization: `Bearer ${TOKEN_T1}`,
      origin: 'http://localhost:5173',
    });
    expect(response.status).toBe(200);
    expect(app.rows).toHaveLength(3);
  });

  it('answers 403 to a Host outside allowedHosts (DNS rebinding) and serves the allowed one', async () => {
    const app = notesServer();
    const handler = createHttpHandler(app.server, { allowedHosts: ['notes.example'] });
    const url = new URL('http://notes.example/mcp');
    const auth = { authorization: `Bearer ${TOKEN_T1}` };

    const rebound = await handler.fetch(createRequest(url, { ...auth, host: 'attacker.example' }));
    expect(rebound.status).toBe(403);
    const local = await handler.fetch(createRequest(url, { ...auth, host: 'localhost' }));
    expect(local.status).toBe(403);
    expect(app.authCalls).toEqual([]);
    expect(app.rows).toHaveLength(2);

    const allowed = await handler.fetch(createRequest(url, { ...auth, host: 'notes.example' }));
    expect(allowed.status).toBe(200);
    expect(app.rows).toHaveLength(3);
  });

  it('hands the tenant named by the transport to the authenticator, which refuses a foreign one (I3)', async () => {
    const app = notesServer();
    const handler = createHttpHandler(app.server, {
      tenantFrom: (request) => request.headers.get('x-workspace') ?? undefined,
    });
    const url = new URL('http://localhost/mcp');
    const headers = { authorization: `Bearer ${TOKEN_T1}`, host: 'localhost' };

    const foreign = await handler.fetch(createRequest(url, { ...headers, 'x-workspace': 't2' }, 'into t2'));
    expect(foreign.status).toBe(403);
    const own = await handler.fetch(createRequest(url, { ...headers, 'x-workspace': 't1' }, 'into t1'));
    expect(own.status).toBe(200);

    expect(app.transportTenants).toEqual(['t2', 't1']);
    expect(app.rows.filter((r) => r.text.startsWith('into'))).toEqual([
      { id: 'n3', tenant: 't1', text: 'into t1', secret: 'DECOY-SECRET' },
    ]);
  });

  it('answers 503 with Retry-After naming no cause, and reports to onError, when the authenticator throws', async () => {
    const app = notesServer();
    const handler = createHttpHandler(app.server);
    app.broken.authenticate = true;

    const response = await handler.fetch(
      createRequest(new URL('http://localhost/mcp'), {
        authorization: `Bearer ${TOKEN_T1}`,
        host: 'localhost',
      }),
    );

    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32053,
        message: 'Temporarily unavailable; retry shortly.',
        data: { status: 503, retry_after_seconds: 5 },
      },
    });
    for (const leak of LEAKS) expect(body).not.toContain(leak);
    expect(app.reported.map((e) => e.message)).toEqual([SECRET_ERROR]);
    expect(app.rows).toHaveLength(2);
  });

  it('refuses 2025-era clients when legacy is "reject" and still serves 2026-07-28 clients', async () => {
    const app = notesServer();
    await using listening = await listen(app.server, { legacy: 'reject' });
    await expect(httpSession(listening.url, TOKEN_T1, ERAS[0])).rejects.toThrow();
    await using modern = await httpSession(listening.url, TOKEN_T1, ERAS[1]);
    const result = await modern.client.callTool({ name: 'add_note', arguments: { text: 'modern only' } });
    expect(result.isError).toBeFalsy();
    expect(app.rows.map((r) => r.text)).toContain('modern only');
  });

  it.each(ERAS)(
    'refuses an SDK client in the $label era with 503 once the kill switch is on',
    async (era) => {
      const app = notesServer();
      await using listening = await listen(app.server);
      await using session = await httpSession(listening.url, TOKEN_T1, era);
      app.killSwitch.on = true;

      const error = await session.client.callTool({ name: 'add_note', arguments: { text: 'paused' } }).then(
        () => undefined,
        (e: unknown) => e,
      );

      // the SDK client does not decode a refused POST: the status and the raw body ride on an SdkHttpError
      expect(error).toBeInstanceOf(SdkHttpError);
      const { status, text } = (error as SdkHttpError).data as { status: number; text: string };
      expect(status).toBe(503);
      expect(JSON.parse(text)).toMatchObject({ error: { code: -32053, data: { retry_after_seconds: 30 } } });
      expect(app.rows).toHaveLength(2);
      expect(app.services).toEqual([]);
    },
  );
});

describe('listen', () => {
  it.each(ERAS)(
    'serves two connections of different tenants through one server, each seeing only its own notes ($label)',
    async (era) => {
      const app = notesServer();
      await using listening = await listen(app.server);
      await using alice = await httpSession(listening.url, TOKEN_T1, era);
      await using bob = await httpSession(listening.url, TOKEN_T2, era);

      const find = async (session: Session) => {
        const result = await session.client.callTool({
          name: 'find_notes',
          arguments: { query: 'groceries' },
        });
        return (result.structuredContent as { result: { notes: { id: string }[] } }).result.notes.map(
          (n) => n.id,
        );
      };
      expect(await find(alice)).toEqual(['n1']);
      expect(await find(bob)).toEqual(['n2']);
      await bob.client.callTool({ name: 'add_note', arguments: { text: 'groceries, bob only' } });
      expect(await find(alice)).toEqual(['n1']);
      expect(await find(bob)).toEqual(['n2', 'n3']);

      expect(app.rows.find((r) => r.id === 'n3')?.tenant).toBe('t2');
      // one services instance per call, bound to the caller's tenant: nothing carried over between requests
      expect(app.services.map((s) => s.connection.tenantId)).toEqual(['t1', 't2', 't2', 't1', 't2']);
      expect(new Set(app.services).size).toBe(5);
    },
  );

  it('closes once, however often it is closed or disposed', async () => {
    const app = notesServer();
    const listening = await listen(app.server);
    await Promise.all([listening.close(), listening.close()]);
    await listening[Symbol.asyncDispose]();
    expect(listening.http.listening).toBe(false);
  });

  it('answers 404 outside the MCP path and closes on dispose', async () => {
    const app = notesServer();
    let url: URL;
    {
      await using listening = await listen(app.server);
      url = listening.url;
      expect(url.hostname).toBe('127.0.0.1');
      expect(url.pathname).toBe('/mcp');
      const response = await fetch(new URL('/other', url), {
        headers: { authorization: `Bearer ${TOKEN_T1}` },
      });
      expect(response.status).toBe(404);
    }
    await expect(fetch(url)).rejects.toThrow();
    expect(app.authCalls).toEqual([]);
  });
});

describe('serveStdio', () => {
  it.each(ERAS)(
    'turns an admission refusal into a JSON-RPC error carrying retry_after_seconds ($label)',
    async (era) => {
      const app = notesServer();
      await using session = await stdioSession(app, TOKEN_T1, era);
      app.killSwitch.on = true;

      const error = await session.client.callTool({ name: 'add_note', arguments: { text: 'paused' } }).then(
        () => undefined,
        (e: unknown) => e,
      );

      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(-32053);
      expect((error as ProtocolError).data).toEqual({ status: 503, retry_after_seconds: 30 });
      expect(app.authCalls).toEqual([]);
      expect(app.rows).toHaveLength(2);
      expect(app.services).toEqual([]);

      app.killSwitch.on = false;
      const result = await session.client.callTool({ name: 'add_note', arguments: { text: 'resumed' } });
      expect(result.isError).toBeFalsy();
      expect(app.rows).toHaveLength(3);
    },
  );

  it.each(ERAS)(
    'refuses every request once the token is revoked, with a JSON-RPC 403 error ($label)',
    async (era) => {
      const app = notesServer();
      await using session = await stdioSession(app, TOKEN_T1, era);
      await session.client.callTool({ name: 'add_note', arguments: { text: 'before' } });
      app.grants.get(TOKEN_T1)!.revoked = true;

      const error = await session.client.listTools().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(-32043);
      const call = await session.client.callTool({ name: 'add_note', arguments: { text: 'after' } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((call as ProtocolError).code).toBe(-32043);
      expect(app.rows.map((r) => r.text)).toEqual(['groceries for t1', 'groceries for t2', 'before']);
      expect(app.authCalls).toHaveLength(3);
    },
  );

  it('refuses to start without a token', () => {
    const app = notesServer();
    expect(() =>
      serveStdio(app.server, {
        token: undefined,
        transport: new StdioServerTransport(new PassThrough(), new PassThrough()),
      }),
    ).toThrow(/token is required/);
  });
});
