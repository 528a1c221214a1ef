/**
 * Protocol edges of core's `serveStdio` on Gatehouse's own line framing: a
 * batch, a `tools/call` with malformed params, an oversized line and a line
 * that is not JSON are answered before anything runs, and the server keeps
 * serving the next line. Every test asserts what happened to the notes.
 */
import { PassThrough } from 'node:stream';
import { RawStdioClient } from '@gatehousejs/testing';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { describe, expect, it } from 'vitest';
import { StdioLineTransport } from '../src/serve/lineTransport.js';
import { type StdioOptions, serveStdio } from '../src/stdio.js';
import { type NotesServer, notesServer, TOKEN_T1 } from './fixtures/notesServer.js';

type Era = '2025-11-25' | '2026-07-28';
const ERAS: readonly Era[] = ['2025-11-25', '2026-07-28'];

/** core's `serveStdio` over in-process pipes, reached by the raw stdio client (which ignores every hint). */
function served(app: NotesServer, era: Era, options: Partial<StdioOptions> = {}): RawStdioClient {
  const input = new PassThrough();
  const output = new PassThrough();
  const handle = serveStdio(app.server, { token: TOKEN_T1, input, output, ...options });
  return RawStdioClient.connect({ input, output, close: () => handle.close() }, { era });
}

/** The error the server answered with `id: null` (a message it could not attribute to a request). */
async function nullIdError(client: RawStdioClient, after = 0) {
  const message = await client.waitForMessage(
    (m) => m.id === null && 'error' in m && client.messages.indexOf(m) >= after,
  );
  return (message as { error: { code: number; message: string } }).error;
}

const notesAdded = (app: NotesServer) => app.rows.filter((r) => r.id !== 'n1' && r.id !== 'n2');

describe.each(ERAS)('serveStdio protocol edges (%s)', (era) => {
  it('refuses a JSON-RPC batch with an invalid-request error and id null; none of its calls runs', async () => {
    const app = notesServer();
    await using client = served(app, era);
    if (era === '2025-11-25') await client.initialize();
    const batch = [
      client.buildRequest('tools/call', { name: 'add_note', arguments: { text: 'one' } }),
      client.buildRequest('tools/call', { name: 'add_note', arguments: { text: 'two' } }),
    ];
    await client.send(batch, { rawLine: JSON.stringify(batch), awaitResponse: false });

    const error = await nullIdError(client);
    expect(error).toEqual({
      code: -32600,
      message: 'JSON-RPC batches are not supported: send one request per line.',
    });
    const next = await client.callTool('add_note', { text: 'single' });
    expect(next.result?.isError).toBeFalsy();
    expect(notesAdded(app).map((r) => r.text)).toEqual(['single']);
    expect(app.calls()).toEqual(['create:single']);
    expect(app.authCalls).toHaveLength(1);
  });

  it.each([
    ['a number as name', { name: 123 }],
    ['a string as arguments', { name: 'add_note', arguments: 'x' }],
    ['null as arguments', { name: 'add_note', arguments: null }],
    ['no params', undefined],
  ])('answers a tools/call with %s with one short sentence, not a validator dump', async (_, params) => {
    const app = notesServer();
    await using client = served(app, era);
    if (era === '2025-11-25') await client.initialize();
    const reply = await client.send({ jsonrpc: '2.0', id: 41, method: 'tools/call', params });
    expect(reply.error).toEqual({
      code: -32602,
      message:
        'Invalid params: tools/call takes params.name (a tool name, as in tools/list) and optionally params.arguments (an object).',
    });
    expect(app.calls()).toEqual([]);
    expect(app.authCalls).toEqual([]);
  });

  it('refuses a line over maxBodyBytes unparsed and serves the next line', async () => {
    const app = notesServer();
    await using client = served(app, era, { maxBodyBytes: 4096 });
    if (era === '2025-11-25') await client.initialize();
    const big = client.buildRequest('tools/call', {
      name: 'add_note',
      arguments: { text: 'x'.repeat(8000) },
    });
    const before = client.messages.length;
    await client.send(big, { awaitResponse: false });

    expect(await nullIdError(client, before)).toEqual({
      code: -32600,
      message: 'The message is larger than 4096 bytes.',
    });
    const next = await client.callTool('add_note', { text: 'fits' });
    expect(next.result?.isError).toBeFalsy();
    expect(notesAdded(app).map((r) => r.text)).toEqual(['fits']);
    expect(app.calls()).toEqual(['create:fits']);
  });

  it('answers a line that is not JSON with a parse error and goes on', async () => {
    const app = notesServer();
    await using client = served(app, era);
    if (era === '2025-11-25') await client.initialize();
    await client.send(undefined, { rawLine: '{"jsonrpc": "2.0", ', awaitResponse: false });
    expect(await nullIdError(client)).toMatchObject({ code: -32700 });
    const next = await client.callTool('find_notes', { query: 'groceries' });
    expect(next.result?.structuredContent).toMatchObject({ status: 'ok' });
  });
});

describe('serveStdio options', () => {
  it('refuses a bad maxBodyBytes and a transport given together with streams', () => {
    const app = notesServer();
    const streams = { input: new PassThrough(), output: new PassThrough() };
    expect(() => serveStdio(app.server, { token: TOKEN_T1, maxBodyBytes: 0, ...streams })).toThrow(
      /maxBodyBytes must be a positive integer/,
    );
    const transport = new StdioServerTransport(new PassThrough(), new PassThrough());
    expect(() => serveStdio(app.server, { token: TOKEN_T1, transport, ...streams })).toThrow(
      /either transport or input\/output/,
    );
  });

  it('answers malformed tools/call params with the short sentence on an SDK transport too', async () => {
    const app = notesServer();
    const input = new PassThrough();
    const output = new PassThrough();
    const handle = serveStdio(app.server, {
      token: TOKEN_T1,
      transport: new StdioServerTransport(input, output),
    });
    await using client = RawStdioClient.connect(
      { input, output, close: () => handle.close() },
      { era: '2026-07-28' },
    );
    const reply = await client.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 7 } });
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).toMatch(/^Invalid params: tools\/call takes params\.name/);
    expect(app.calls()).toEqual([]);
  });
});

describe('StdioLineTransport', () => {
  /** A started transport over pipes, recording what it delivers and what it writes back. */
  async function started(maxBodyBytes: number) {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StdioLineTransport(input, output, { maxBodyBytes });
    const delivered: unknown[] = [];
    const written: { id: unknown; error?: { code: number } }[] = [];
    transport.onmessage = (message) => delivered.push(message);
    let partial = '';
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) written.push(JSON.parse(line));
    });
    await transport.start();
    const flush = () => new Promise((resolve) => setImmediate(resolve));
    return { input, transport, delivered, written, flush };
  }

  it('never holds more than the limit of a line that has no newline yet, and serves the line after it', async () => {
    const { input, transport, delivered, written, flush } = await started(1024);
    // 8 MiB without a newline, in 64 KiB chunks: refused as soon as the limit is passed,
    // not at the newline; the rest is discarded as it comes
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    input.write(chunk);
    await flush();
    const refused = [{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) }];
    expect(written).toEqual(refused);
    for (let i = 1; i < 128; i++) input.write(chunk);
    await flush();
    expect(written).toEqual(refused);
    input.write('tail of the long line\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await flush();
    expect(delivered).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(written).toHaveLength(1);
    await transport.close();
  });

  it('assembles a line split across chunks within the limit', async () => {
    const { input, delivered, flush, transport } = await started(1024);
    input.write('{"jsonrpc":"2.0",');
    input.write('"method":"notifications/initialized"}\r');
    input.write('\n\n');
    await flush();
    expect(delivered).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    await transport.close();
  });

  it('answers a JSON value that is not a JSON-RPC 2.0 object as an invalid request', async () => {
    const { input, delivered, written, flush, transport } = await started(1024);
    input.write('{"id":3,"method":"ping"}\n"text"\n');
    await flush();
    expect(delivered).toEqual([]);
    expect(written.map((m) => [m.id, m.error?.code])).toEqual([
      [3, -32600],
      [null, -32600],
    ]);
    await transport.close();
  });

  it('closes when its input ends', async () => {
    const { input, transport, flush } = await started(1024);
    let closed = 0;
    transport.onclose = () => closed++;
    input.end();
    await flush();
    expect(closed).toBe(1);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/closed/);
  });
});
