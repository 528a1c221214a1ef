import { describe, expect, it } from 'vitest';
import {
  type HttpReply,
  MCP_META_KEYS,
  parseErrorJsonLine,
  RawHttpClient,
  toolResultText,
} from '../src/index.js';
import { listen, startBareHttpServer } from './fixtures/httpServer.js';

function toolNames(reply: HttpReply): unknown[] {
  const tools = reply.result?.tools;
  return Array.isArray(tools) ? tools.map((tool: { name?: unknown }) => tool.name) : [];
}

function echoed(reply: HttpReply): Record<string, unknown> {
  return JSON.parse(toolResultText(reply.result));
}

describe('RawHttpClient', () => {
  it('lists and calls a tool in the 2026-07-28 era with the _meta envelope and standard headers', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({
      url: server.url,
      era: '2026-07-28',
      clientInfo: { name: 'probe', version: '9' },
    });

    const list = await client.listTools();
    const call = await client.callTool('echo', { a: 'x' });

    expect(list.status).toBe(200);
    expect(list.result?.resultType).toBe('complete');
    expect(toolNames(list)).toEqual(['echo', 'fail', 'boom', 'delete_all']);
    expect(call.error).toBeUndefined();
    expect(echoed(call).arguments).toEqual({ a: 'x' });
    expect(echoed(call).envelope).toMatchObject({
      [MCP_META_KEYS.protocolVersion]: '2026-07-28',
      [MCP_META_KEYS.clientInfo]: { name: 'probe', version: '9' },
      [MCP_META_KEYS.clientCapabilities]: {},
    });
    const seen = server.requests.map(({ headers }) => [
      headers['mcp-protocol-version'],
      headers['mcp-method'],
      headers['mcp-name'],
    ]);
    expect(seen).toEqual([
      ['2026-07-28', 'tools/list', undefined],
      ['2026-07-28', 'tools/call', 'echo'],
    ]);
    expect(server.events).toEqual(['tools/list:modern', 'tools/call:modern:echo']);
  });

  it('runs the 2025-11-25 handshake once, lazily, before listing and calling a tool', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({ url: server.url, era: '2025-11-25' });

    const list = await client.listTools();
    const call = await client.callTool('echo', { a: 'y' });
    const handshake = await client.initialize();

    expect(handshake.result?.protocolVersion).toBe('2025-11-25');
    expect(toolNames(list)).toContain('echo');
    expect(echoed(call)).toMatchObject({ arguments: { a: 'y' }, envelope: null });
    expect(server.requests.map(({ headers }) => headers['mcp-protocol-version'])).toEqual([
      undefined,
      '2025-11-25',
      '2025-11-25',
      '2025-11-25',
    ]);
    expect(server.events).toEqual(['initialized:legacy', 'tools/list:legacy', 'tools/call:legacy:echo']);
  });

  it('sends back the mcp-session-id initialize returned and ends it with DELETE on close', async () => {
    await using server = await startBareHttpServer({ sessionId: 'sess-1' });
    const client = new RawHttpClient({ url: server.url, era: '2025-11-25' });

    await client.listTools();
    expect(client.sessionId).toBe('sess-1');
    await client.close();

    const seen = server.requests.map(({ method, headers }) => [method, headers['mcp-session-id']]);
    expect(seen).toEqual([
      ['POST', undefined],
      ['POST', 'sess-1'],
      ['POST', 'sess-1'],
      ['DELETE', 'sess-1'],
    ]);
    expect(client.sessionId).toBeUndefined();
  });

  it('sends an explicit id as given and a re-sent call with a new id runs again', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const first = await client.callTool('echo', { a: 'x' }, { id: 'call-7' });
    const again = await client.callTool('echo', { a: 'x' }, { id: 8 });

    expect(first.response?.id).toBe('call-7');
    expect(echoed(first).id).toBe('call-7');
    expect(again.response?.id).toBe(8);
    expect(echoed(again).id).toBe(8);
    expect(server.events).toEqual(['tools/call:modern:echo', 'tools/call:modern:echo']);
  });

  it('resolves with HTTP 400 and the JSON-RPC error when the Mcp-Name header disagrees with the body', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const reply = await client.callTool('echo', {}, { id: 3, headers: { 'mcp-name': 'delete_all' } });

    expect(reply.status).toBe(400);
    expect(reply.response?.id).toBe(3);
    expect(reply.error?.code).toBe(-32020);
    expect(reply.error?.message).toContain('Mcp-Name');
    expect(server.requests[0]?.headers['mcp-name']).toBe('delete_all');
    expect(server.events).toEqual([]);
  });

  it('lets a test tamper with a prepared request and still see the refusal', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const { body, headers } = client.prepare('tools/list');
    const reply = await client.send(
      { ...body, method: 'tools/call', params: { ...body.params, name: 'x' } },
      { headers },
    );

    expect(reply.status).toBe(400);
    expect(reply.error?.code).toBe(-32020);
    expect(reply.error?.message).toContain('Mcp-Method');
    expect(server.events).toEqual([]);
  });

  it('resolves a parse error for a malformed body posted as is', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const reply = await client.send(undefined, { rawBody: '{"jsonrpc":"2.0","id":5,' });

    expect(reply.status).toBe(400);
    expect(reply.id).toBeUndefined();
    expect(reply.response?.id).toBeNull();
    expect(reply.error?.code).toBe(-32700);
    expect(server.requests[0]?.headers['content-length']).toBe('24');
  });

  it('resolves with HTTP 400 when a required _meta key is dropped', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const reply = await client.callTool(
      'echo',
      {},
      { meta: { [MCP_META_KEYS.clientCapabilities]: undefined } },
    );

    expect(reply.status).toBe(400);
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).toContain(MCP_META_KEYS.clientCapabilities);
    expect(server.events).toEqual([]);
  });

  it('sends Authorization, Origin and Host exactly as given and adds no browser headers', async () => {
    await using server = await startBareHttpServer();
    const headers = { Authorization: 'Bearer t0k', Origin: 'https://evil.example' };
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28', headers });

    await client.listTools({ headers: { host: 'evil.example:8080' } });

    const seen = server.requests[0]?.headers;
    expect(seen?.authorization).toBe('Bearer t0k');
    expect(seen?.origin).toBe('https://evil.example');
    expect(seen?.host).toBe('evil.example:8080');
    expect(seen?.accept).toBe('application/json, text/event-stream');
    expect(seen?.['sec-fetch-mode']).toBeUndefined();
  });

  it('parses the JSON-RPC response out of an SSE stream', async () => {
    await using server = await startBareHttpServer({ responseMode: 'sse' });
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const reply = await client.callTool('echo', { a: 'sse' }, { id: 'sse-1' });

    expect(reply.headers['content-type']).toContain('text/event-stream');
    expect(reply.text).toContain('data: ');
    expect(reply.messages.map((message) => message.id)).toEqual(['sse-1']);
    expect(echoed(reply).arguments).toEqual({ a: 'sse' });
  });

  it('calls a tool whose annotations say destructive without asking anyone', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const reply = await client.callTool('delete_all', {});

    expect(reply.status).toBe(200);
    expect(server.events).toEqual(['tools/call:modern:delete_all']);
  });

  it('resolves tool errors and thrown handler errors instead of throwing', async () => {
    await using server = await startBareHttpServer();
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const failed = await client.callTool('fail', {});
    const thrown = await client.callTool('boom', {});

    expect(failed.result?.isError).toBe(true);
    expect(parseErrorJsonLine(toolResultText(failed.result))).toEqual(failed.result?.structuredContent);
    expect(thrown.status).toBe(200);
    expect(thrown.error?.code).toBe(-32603);
    expect(() => toolResultText(thrown.result)).toThrow(/content array/);
  });

  it('resolves an HTTP 401 with its headers and a non-JSON body', async () => {
    await using server = await listen((_req, res) => {
      res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"', 'content-type': 'text/plain' });
      res.end('unauthorized');
    });
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28' });

    const reply = await client.callTool('echo', {});

    expect(reply.status).toBe(401);
    expect(reply.headers['www-authenticate']).toBe('Bearer realm="mcp"');
    expect(reply.text).toBe('unauthorized');
    expect(reply.messages).toEqual([]);
    expect(reply.response).toBeUndefined();
  });

  it('rejects when no complete response arrives within the timeout', async () => {
    await using server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': still here\n\n');
    });
    await using client = new RawHttpClient({ url: server.url, era: '2026-07-28', timeoutMs: 200 });

    await expect(client.listTools()).rejects.toThrow(/within 200 ms/);
  });

  it('refuses bad options up front and a handshake in the 2026-07-28 era', async () => {
    expect(() => new RawHttpClient({ url: 'ftp://127.0.0.1/mcp', era: '2026-07-28' })).toThrow(TypeError);
    // @ts-expect-error an era the client does not speak
    expect(() => new RawHttpClient({ url: 'http://127.0.0.1/mcp', era: '2024-11-05' })).toThrow(/era/);
    const client = new RawHttpClient({ url: 'http://127.0.0.1/mcp', era: '2026-07-28' });
    await expect(client.initialize()).rejects.toThrow(/discover/);
  });
});
