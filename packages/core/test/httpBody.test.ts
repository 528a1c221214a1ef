import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../src/http.js';
import { listen } from '../src/node.js';
import { notesServer, TOKEN_T1 } from './fixtures/notesServer.js';

const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

const addNote = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'add_note', arguments: { text } },
});

const post = (url: URL, body: BodyInit, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { ...LEGACY_HEADERS, ...headers }, body });

const bearer = { authorization: `Bearer ${TOKEN_T1}` };

/** A request body that arrives in chunks, without a Content-Length. */
function chunked(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const size = Math.min(64 * 1024, bytes - sent);
      controller.enqueue(new Uint8Array(size).fill(0x20));
      sent += size;
    },
  });
}

describe('createHttpHandler request bodies', () => {
  it('refuses a JSON-RPC batch before any of its requests runs (2025-11-25 headers)', async () => {
    const app = notesServer();
    await using listening = await listen(app.server);
    const before = app.rows.length;
    const response = await post(
      listening.url,
      JSON.stringify([addNote(1, 'one'), addNote(2, 'two')]),
      bearer,
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: -32600, message: /batches are not supported/ },
    });
    expect(app.rows).toHaveLength(before);
    expect(app.calls()).toEqual([]);
  });

  it('answers 413 to a body over the limit before parsing it, declared or chunked', async () => {
    const app = notesServer();
    await using listening = await listen(app.server, { maxBodyBytes: 4096 });
    const big = JSON.stringify(addNote(1, 'x'.repeat(8_000)));
    const declared = await post(listening.url, big, bearer);
    expect(declared.status).toBe(413);
    const streamed = await fetch(listening.url, {
      method: 'POST',
      headers: { ...LEGACY_HEADERS, ...bearer },
      body: chunked(100_000),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(app.calls()).toEqual([]);
  });

  it('serves a body within the limit', async () => {
    const app = notesServer();
    await using listening = await listen(app.server, { maxBodyBytes: 4096 });
    const response = await post(listening.url, JSON.stringify(addNote(1, 'fits')), bearer);
    expect(response.status).toBe(200);
    expect(app.calls()).toEqual(['create:fits']);
  });

  it('authenticates on the headers and never reads the body of a refused request', async () => {
    const app = notesServer();
    const handler = createHttpHandler(app.server);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...LEGACY_HEADERS, host: 'localhost' },
      body,
      duplex: 'half',
    } as RequestInit);
    const response = await handler.fetch(request);
    expect(response.status).toBe(401);
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it('answers malformed JSON with a parse error and refuses a bad limit at configuration', async () => {
    const app = notesServer();
    await using listening = await listen(app.server);
    const response = await post(listening.url, '{"jsonrpc": "2.0", ', bearer);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
    expect(() => createHttpHandler(app.server, { maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
  });
});

describe('createHttpHandler malformed tools/call params', () => {
  it.each([
    ['a number as name', { name: 123 }],
    ['a string as arguments', { name: 'add_note', arguments: 'x' }],
    ['an array as arguments', { name: 'add_note', arguments: ['x'] }],
    ['no params', undefined],
  ])('answers %s with one short sentence, not a validator dump', async (_, params) => {
    const app = notesServer();
    await using listening = await listen(app.server);
    const response = await post(
      listening.url,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
      bearer,
    );
    const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(body.error.message).toMatch(/^Invalid params: tools\/call takes params\.name/);
    expect(body.error.message).not.toMatch(/expected|invalid_type|\[/);
    expect(app.calls()).toEqual([]);
  });
});

describe('createNodeListener request bodies', () => {
  /** Streams up to `total` bytes to `url` without credentials; resolves with the status and the bytes written by then. */
  function sendUnauthenticated(url: URL, total: number): Promise<{ status: number; written: number }> {
    return new Promise((resolve, reject) => {
      let written = 0;
      let answered = false;
      const request = httpRequest(url, { method: 'POST', headers: LEGACY_HEADERS });
      request.on('response', (response) => {
        answered = true;
        response.resume();
        resolve({ status: response.statusCode ?? 0, written });
        request.destroy();
      });
      request.on('error', (error) => (answered ? undefined : reject(error)));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!answered && written < total) {
          written += chunk.length;
          if (!request.write(chunk)) return void request.once('drain', pump);
        }
        if (!answered) request.end();
      };
      pump();
    });
  }

  it('answers 401 on the headers without reading an unauthenticated body', async () => {
    const app = notesServer();
    await using listening = await listen(app.server);
    const { status, written } = await sendUnauthenticated(listening.url, 8 * 1024 * 1024);
    expect(status).toBe(401);
    // a reader of the whole body would have taken all 8 MiB (or answered 413 at 4 MiB)
    expect(written).toBeLessThan(4 * 1024 * 1024);
    expect(app.authCalls).toEqual([]);
  });
});
