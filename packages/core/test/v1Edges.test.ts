/**
 * Protocol edges on the SDK v1 paths: the admission middleware in front of the v1
 * Streamable HTTP transport, and the v1 mount over stdio (the SDK v1 stdio
 * transport, and Gatehouse's line framing). Batches, malformed `tools/call`
 * params and oversized messages are answered before anything runs; the notes
 * and the services show that nothing did.
 */
import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { RawStdioClient } from '@gatehousejs/testing';
import { StdioServerTransport as V1Stdio } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describe, expect, it } from 'vitest';
import { StdioLineTransport } from '../src/sdkV1.js';
import { MALFORMED_TOOLS_CALL } from '../src/serve/body.js';
import { httpHost } from './fixtures/v1Carriers.js';
import { type NotesApp, notesApp, TOKEN_T1, v1Host } from './fixtures/v1Notes.js';

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** POSTs `body` as it is to the v1 host behind the admission middleware. */
function post(url: URL, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKEN_T1}`,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC message of a JSON or SSE body. */
const rpcOf = (answer: Answer) =>
  JSON.parse(
    answer.body.includes('data:')
      ? answer.body
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .at(-1)!
          .slice(5)
      : answer.body,
  ) as { id: unknown; result?: { isError?: boolean }; error?: { code: number; message: string } };

const addNote = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'add_note', arguments: { text } },
});

const added = (app: NotesApp) => app.rows.filter((r) => r.id !== 'n1' && r.id !== 'n2').map((r) => r.text);

describe('createAdmissionMiddleware request bodies', () => {
  it('refuses a JSON-RPC batch with 400 before any of its requests runs (the v1 transport would run each)', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless');
    const answer = await post(host.url, JSON.stringify([addNote(1, 'one'), addNote(2, 'two')]));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'JSON-RPC batches are not supported: send one request per HTTP POST.' },
    });
    expect(added(app)).toEqual([]);
    expect(app.services).toEqual([]);
  });

  it('answers a tools/call with malformed params with the short sentence', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'McpServer', 'stateless');
    const answer = await post(
      host.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'add_note', arguments: [] },
      }),
    );
    expect(rpcOf(answer)).toMatchObject({ id: 9, error: { code: -32602, message: MALFORMED_TOOLS_CALL } });
    expect(app.services).toEqual([]);
    expect(app.hostCalls).toEqual([]);
  });

  it('answers 413 to an admitted body over maxBodyBytes and serves one within it', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless', { maxBodyBytes: 2048 });
    const big = await post(host.url, JSON.stringify(addNote(1, 'x'.repeat(4000))));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ id: null, error: { code: -32600 } });
    const small = await post(host.url, JSON.stringify(addNote(2, 'fits')));
    expect(small.status).toBe(200);
    expect(rpcOf(small).result?.isError).toBeFalsy();
    expect(added(app)).toEqual(['fits']);
  });

  it('answers malformed JSON with a parse error and refuses a bad limit at configuration', async () => {
    const app = notesApp();
    await using host = await httpHost(app, 'Server', 'stateless');
    const answer = await post(host.url, '{"jsonrpc": ');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32700 } });
    const { createAdmissionMiddleware } = await import('../src/sdkV1.js');
    expect(() => createAdmissionMiddleware(app.server, { maxBodyBytes: -1 })).toThrow(/maxBodyBytes/);
  });
});

/** A v1 host with its credential from configuration, on `transport`'s pipes, reached by the raw stdio client. */
async function v1Stdio(app: NotesApp, lineLimit?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = v1Host('McpServer', app, { credential: { token: TOKEN_T1 } });
  await server.connect(
    lineLimit === undefined
      ? new V1Stdio(input, output)
      : new StdioLineTransport(input, output, { maxBodyBytes: lineLimit }),
  );
  const client = RawStdioClient.connect(
    { input, output, close: () => server.close() },
    { era: '2025-11-25' },
  );
  await client.initialize();
  return client;
}

describe('mountGatehouse over stdio', () => {
  it.each([
    ['the SDK v1 stdio transport', undefined],
    ['StdioLineTransport', 1_048_576],
  ])('answers malformed tools/call params with the short sentence on %s', async (_, limit) => {
    const app = notesApp();
    await using client = await v1Stdio(app, limit);
    const reply = await client.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'add_note', arguments: null },
    });
    expect(reply.error).toEqual({ code: -32602, message: MALFORMED_TOOLS_CALL });
    expect(app.services).toEqual([]);
    expect(app.hostCalls).toEqual([]);
  });

  it('refuses a batch on StdioLineTransport with id null; none of its calls runs, and the next line is served', async () => {
    const app = notesApp();
    await using client = await v1Stdio(app, 1_048_576);
    const batch = [addNote(20, 'one'), addNote(21, 'two')];
    await client.send(batch, { rawLine: JSON.stringify(batch), awaitResponse: false });
    const refused = await client.waitForMessage((m) => m.id === null && 'error' in m);
    expect(refused).toMatchObject({ error: { code: -32600 } });
    const next = await client.callTool('add_note', { text: 'single' });
    expect(next.result?.isError).toBeFalsy();
    expect(added(app)).toEqual(['single']);
  });

  it('refuses a line over the limit on StdioLineTransport and serves the next line', async () => {
    const app = notesApp();
    await using client = await v1Stdio(app, 2048);
    await client.send(addNote(30, 'x'.repeat(4000)), { awaitResponse: false });
    const refused = await client.waitForMessage((m) => m.id === null && 'error' in m);
    expect(refused).toMatchObject({
      error: { code: -32600, message: 'The message is larger than 2048 bytes.' },
    });
    const next = await client.callTool('add_note', { text: 'fits' });
    expect(next.result?.isError).toBeFalsy();
    expect(added(app)).toEqual(['fits']);
  });
});
