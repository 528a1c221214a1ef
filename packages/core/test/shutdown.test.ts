/**
 * `listen`'s health endpoints and graceful shutdown: readiness fails at once,
 * calls in flight get their full answer, requests after the server stopped
 * accepting get 503, and the deadline cuts what never finishes.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError } from '../src/errors.js';
import { createGatehouse } from '../src/index.js';
import { type FetchHandler, type Listening, listen } from '../src/node.js';
import { connection, RIGHTS } from './fixtures.js';

const TOKEN = 'ghmcp_slow_0123456789';

/** A server with one read tool that waits until the test lets it finish (or forever). */
function slowServer() {
  let release: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started: string[] = [];
  const finished: string[] = [];
  const gh = createGatehouse({ rights: RIGHTS, services: () => ({}) });
  const slowRead = gh.defineTool({
    name: 'slow_read',
    description: 'Reads after a while.',
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({ label: z.string() }),
    presenter: {
      outputSchema: {
        type: 'object',
        properties: { label: { type: 'string' } },
        required: ['label'],
        additionalProperties: false,
      },
      present: (label: string) => ({ label }),
    },
    run: async ({ input }) => {
      started.push(input.label);
      await gate;
      finished.push(input.label);
      return input.label;
    },
  });
  const server = gh.createServer({
    name: 'slow',
    version: '1.0.0',
    tools: [slowRead],
    authenticate: async ({ token }) =>
      token === TOKEN ? { ok: true, connection: connection() } : { ok: false, status: 401, reason: 'No.' },
  });
  return {
    server,
    started,
    finished,
    release: () => release(),
    /** From now on the tool never finishes. */
    hang: () => {
      gate = new Promise<void>(() => {});
    },
  };
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const callBody = (label: string, id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'slow_read', arguments: { label }, _meta: META },
  });

const CALL_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'slow_read',
  authorization: `Bearer ${TOKEN}`,
};

/** One raw tools/call of `slow_read`; resolves with the status and the JSON-RPC message (JSON or SSE). */
async function call(url: URL, label: string, id = 1): Promise<{ status: number; message: unknown }> {
  const response = await fetch(url, { method: 'POST', headers: CALL_HEADERS, body: callBody(label, id) });
  const text = await response.text();
  const data = response.headers.get('content-type')?.includes('text/event-stream')
    ? (/^data: (.*)$/m.exec(text)?.[1] ?? 'null')
    : text;
  return { status: response.status, message: JSON.parse(data) };
}

const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

/** A raw socket to `url`'s port that collects everything it receives. */
function rawSocket(url: URL): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect(Number(url.port), url.hostname, () =>
      resolve({ socket, received: () => data, closed }),
    );
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk) => {
      data += chunk.toString();
    });
    socket.once('error', reject);
  });
}

const rawPost = (path: string, body: string) =>
  [
    `POST ${path} HTTP/1.1`,
    'Host: localhost',
    ...Object.entries(CALL_HEADERS).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');

/** A host route whose answer starts at once (headers sent) and ends when `end` is called. */
function streamingHost() {
  let end: () => void = () => {};
  const fetch: FetchHandler = () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('first part;'));
        end = () => {
          controller.enqueue(new TextEncoder().encode('last part'));
          controller.close();
        };
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/plain' } });
  };
  return { fetch, end: () => end() };
}

const get = async (url: URL, path: string, method = 'GET') => {
  const response = await fetch(new URL(path, url), { method });
  return { status: response.status, text: await response.text(), headers: response.headers };
};

describe('listen health endpoints', () => {
  it('answers /healthz 200 ok and /readyz by the ready probe, before the host handler and without auth', async () => {
    const app = slowServer();
    let healthy = true;
    const hostSaw: string[] = [];
    await using served = await listen(app.server, {
      fetch: (request) => {
        hostSaw.push(new URL(request.url).pathname);
        return new Response('host');
      },
      health: {
        ready: async () => {
          if (!healthy) throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db/prod');
        },
      },
    });
    expect(await get(served.url, '/healthz')).toMatchObject({ status: 200, text: 'ok' });
    expect(await get(served.url, '/readyz')).toMatchObject({ status: 200, text: 'ready' });
    expect(await get(served.url, '/readyz', 'HEAD')).toMatchObject({ status: 200, text: '' });
    healthy = false;
    const down = await get(served.url, '/readyz');
    expect(down).toMatchObject({ status: 503, text: 'not ready' });
    expect(down.headers.get('cache-control')).toBe('no-store');
    expect(await get(served.url, '/healthz')).toMatchObject({ status: 200, text: 'ok' });
    healthy = true;
    expect(await get(served.url, '/readyz')).toMatchObject({ status: 200, text: 'ready' });
    expect((await get(served.url, '/readyz', 'POST')).status).toBe(405);
    expect(hostSaw).toEqual([]);
  });

  it('answers 503 not ready when the probe takes longer than timeoutMs, and probes once for concurrent requests', async () => {
    const app = slowServer();
    let probes = 0;
    await using served = await listen(app.server, {
      health: {
        ready: () => {
          probes++;
          return new Promise(() => {});
        },
        timeoutMs: 50,
      },
    });
    const answers = await Promise.all([1, 2, 3].map(() => get(served.url, '/readyz')));
    expect(answers.map((a) => [a.status, a.text])).toEqual(Array(3).fill([503, 'not ready']));
    expect(probes).toBe(1);
  });

  it('refuses bad health options and an MCP path on a health path up front', async () => {
    const app = slowServer();
    const bad = [
      { health: { ready: 'yes' } },
      { health: { timeoutMs: 0 } },
      { health: { timeoutMs: 1.5 } },
      { path: '/readyz' },
    ] as unknown as Parameters<typeof listen>[1][];
    for (const options of bad)
      await expect(listen(app.server, options)).rejects.toSatisfy(ConfigurationError.is);
  });
});

describe('Listening.shutdown', () => {
  it('fails readiness at once, finishes calls in flight, refuses what arrives after it stopped accepting, and counts', async () => {
    const app = slowServer();
    const host = streamingHost();
    const served = await listen(app.server, { fetch: host.fetch });
    const calls = ['a', 'b', 'c', 'd', 'e'].map((label, i) => call(served.url, label, i + 1));
    const raw = await rawSocket(served.url);
    raw.socket.write('GET /api/stream HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await until(() => app.started.length === 5 && raw.received().includes('first part'), 'calls in flight');

    const shutdown = served.shutdown({ drainDelayMs: 300, deadlineMs: 5_000 });
    expect(served.shutdown()).toBe(shutdown);
    // during the drain delay: not ready, still alive, still accepting
    expect(await get(served.url, '/readyz')).toMatchObject({ status: 503, text: 'draining' });
    expect(await get(served.url, '/healthz')).toMatchObject({ status: 200, text: 'ok' });
    await new Promise((r) => setTimeout(r, 400));

    // stopped: a new connection is refused; a request on a kept-alive connection gets 503
    await expect(fetch(new URL('/healthz', served.url))).rejects.toThrow();
    raw.socket.write(rawPost('/mcp', callBody('late', 9)));
    await new Promise((r) => setTimeout(r, 50));
    app.release();
    host.end();

    const answers = await Promise.all(calls);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => (a.message as { result: { structuredContent: unknown } }).result)).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((label) =>
        expect.objectContaining({ structuredContent: expect.objectContaining({ result: { label } }) }),
      ),
    );
    expect(await shutdown).toEqual({ finished: 6, cut: 0 });
    await raw.closed;
    const [streamed, refused] = raw.received().split(/(?=HTTP\/1\.1 )/);
    expect(streamed).toMatch(/^HTTP\/1\.1 200/);
    expect(streamed).toMatch(/first part;\r\n9\r\nlast part\r\n0\r\n\r\n$/);
    expect(refused).toMatch(/^HTTP\/1\.1 503/);
    expect(refused).toMatch(/retry-after: 5/i);
    expect(refused).toMatch(/connection: close/i);
    expect(JSON.parse(refused!.slice(refused!.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { code: -32053, data: { status: 503, retry_after_seconds: 5 } },
    });
    expect(app.started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(app.finished).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(served.http.listening).toBe(false);
  });

  it('cuts a call that never finishes at the deadline and reports it', async () => {
    const app = slowServer();
    app.hang();
    const served = await listen(app.server);
    const stuck = call(served.url, 'stuck').then(
      () => 'answered',
      () => 'cut',
    );
    await until(() => app.started.length === 1, 'the call to start');
    const began = performance.now();
    expect(await served.shutdown({ deadlineMs: 200 })).toEqual({ finished: 0, cut: 1 });
    expect(performance.now() - began).toBeGreaterThanOrEqual(190);
    expect(await stuck).toBe('cut');
    expect(app.finished).toEqual([]);
  });

  it('is cut short by close(), and resolves at once when nothing is in flight', async () => {
    const app = slowServer();
    app.hang();
    const served: Listening = await listen(app.server);
    const stuck = call(served.url, 'stuck').catch(() => 'cut');
    await until(() => app.started.length === 1, 'the call to start');
    const shutdown = served.shutdown({ drainDelayMs: 10_000, deadlineMs: 10_000 });
    const began = performance.now();
    await served.close();
    expect(await shutdown).toEqual({ finished: 0, cut: 1 });
    expect(performance.now() - began).toBeLessThan(2_000);
    expect(await stuck).toBe('cut');

    const idle = await listen(slowServer().server);
    expect(await idle.shutdown()).toEqual({ finished: 0, cut: 0 });
    await idle.close();
  });

  it('rejects bad options with a ConfigurationError and keeps serving', async () => {
    const app = slowServer();
    await using served = await listen(app.server);
    for (const options of [{ drainDelayMs: -1 }, { deadlineMs: 1.5 }, { deadlineMs: Number.NaN }]) {
      await expect(served.shutdown(options)).rejects.toSatisfy(ConfigurationError.is);
    }
    expect(await get(served.url, '/readyz')).toMatchObject({ status: 200, text: 'ready' });
  });
});
