/**
 * `listen`'s health endpoints and graceful shutdown: readiness fails at once,
 * calls in flight get their full answer, requests during the grace get 503
 * on new and kept-alive connections alike (never a reset), the listener
 * closes after the grace, and the deadline cuts what never finishes.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
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
  const server = gh.createServer(
    withGuards({
      name: 'slow',
      version: '1.0.0',
      tools: [slowRead],
      authenticate: async ({ token }) =>
        token === TOKEN ? { ok: true, connection: connection() } : { ok: false, status: 401, reason: 'No.' },
    }),
  );
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Exchange {
  readonly label: string;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** `performance.now()` when the request was sent. */
  readonly sentAt: number;
}

/** One tools/call of `slow_read` over node:http through `agent`; rejects on a reset or a refused connection. */
function post(url: URL, agent: Agent | false, label: string, id: number): Promise<Exchange> {
  const sentAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: CALL_HEADERS }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.once('end', () =>
        resolve({ label, status: res.statusCode ?? 0, headers: res.headers, body, sentAt }),
      );
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(callBody(label, id));
  });
}

/** The JSON-RPC message of an answer, plain JSON or the SSE `data:` line. */
const messageOf = (exchange: Exchange): Record<string, unknown> =>
  JSON.parse(
    String(exchange.headers['content-type']).includes('text/event-stream')
      ? (/^data: (.*)$/m.exec(exchange.body)?.[1] ?? 'null')
      : exchange.body,
  );

/**
 * A client on one kept-alive connection (maxSockets 1) sending calls back to
 * back until `done()`; `answers` and `errors` fill as it goes, `ended` resolves
 * when it stopped (at `done()` or its first error).
 */
function keepAliveClient(url: URL, name: string, done: () => boolean) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Exchange[] = [];
  const errors: string[] = [];
  const ended = (async () => {
    for (let n = 1; !done(); n++) {
      try {
        answers.push(await post(url, agent, `${name}-${n}`, n));
      } catch (error) {
        errors.push(`${name}-${n}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        break;
      }
    }
    agent.destroy();
  })();
  return { answers, errors, ended };
}

/** Asserts `exchange` is the shutdown's 503: `Retry-After`, `Connection: close`, JSON-RPC `-32053`. */
function expectRefused(exchange: Exchange): void {
  expect(exchange.status).toBe(503);
  expect(exchange.headers['retry-after']).toBe('5');
  expect(exchange.headers.connection).toBe('close');
  expect(messageOf(exchange)).toMatchObject({
    error: { code: -32053, data: { status: 503, retry_after_seconds: 5 } },
  });
}

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

    const shutdown = served.shutdown({ drainDelayMs: 300, graceMs: 0, deadlineMs: 5_000 });
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
    // the deadline counts from the end of the grace, when the server stops listening
    expect(await served.shutdown({ graceMs: 100, deadlineMs: 200 })).toEqual({ finished: 0, cut: 1 });
    expect(performance.now() - began).toBeGreaterThanOrEqual(290);
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
    expect(await idle.shutdown({ graceMs: 0 })).toEqual({ finished: 0, cut: 0 });
    await idle.close();
  });

  it('rejects bad options with a ConfigurationError and keeps serving', async () => {
    const app = slowServer();
    await using served = await listen(app.server);
    const bad = [{ drainDelayMs: -1 }, { deadlineMs: 1.5 }, { deadlineMs: Number.NaN }, { graceMs: -1 }];
    for (const options of [...bad, { graceMs: 2 ** 31 }]) {
      await expect(served.shutdown(options)).rejects.toSatisfy(ConfigurationError.is);
    }
    expect(await get(served.url, '/readyz')).toMatchObject({ status: 200, text: 'ready' });
  });

  it('answers 16 kept-alive clients sending through the shutdown without a reset: 200 while draining, 503 during the grace', async () => {
    const app = slowServer();
    app.release();
    const served = await listen(app.server);
    const DRAIN = 300;
    const GRACE = 1_000;
    let graceEnds = Number.POSITIVE_INFINITY;
    // the listener closes when the grace ends, and a connection it has not taken in by then is
    // reset; the clients share this busy process with the server, so a call's connect can lag the
    // call itself: they stop 200 ms before the end
    const done = () => performance.now() >= graceEnds - 200;
    const results = Array.from({ length: 16 }, (_, i) => keepAliveClient(served.url, `c${i}`, done));
    await until(() => results.every((r) => r.answers.length >= 2), 'every client to be sending');
    const began = performance.now();
    graceEnds = began + DRAIN + GRACE;
    const report = await served.shutdown({ drainDelayMs: DRAIN, graceMs: GRACE, deadlineMs: 5_000 });
    await Promise.all(results.map((r) => r.ended));

    expect(results.flatMap((r) => r.errors)).toEqual([]);
    const answers = results.flatMap((r) => r.answers);
    const served200 = answers.filter((a) => a.status === 200);
    for (const answer of served200) {
      expect(messageOf(answer)).toMatchObject({
        result: { structuredContent: { result: { label: answer.label } } },
      });
    }
    for (const answer of answers.filter((a) => a.status !== 200)) expectRefused(answer);
    // every run was answered 200; nothing answered 503 ran
    expect([...app.started].sort()).toEqual(served200.map((a) => a.label).sort());
    expect([...app.finished].sort()).toEqual(served200.map((a) => a.label).sort());
    for (const { answers: own } of results) {
      expect(own.some((a) => a.status === 200 && a.sentAt > began)).toBe(true);
      expect(own.some((a) => a.status === 503)).toBe(true);
    }
    expect(report.cut).toBe(0);
    expect(report.finished).toBeGreaterThanOrEqual(served200.filter((a) => a.sentAt > began).length);
    expect(served.http.listening).toBe(false);
  });

  it('keeps accepting connections and kept-alive ones open during the grace, answering 503, and refuses connections after it', async () => {
    const app = slowServer();
    app.release();
    const served = await listen(app.server, { fetch: () => new Response('host') });
    const kept = await rawSocket(served.url);
    kept.socket.write('GET /api/first HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await until(() => kept.received().endsWith('host\r\n0\r\n\r\n'), 'the first answer');

    const shutdown = served.shutdown({ drainDelayMs: 0, graceMs: 400, deadlineMs: 1_000 });
    await sleep(100);
    expectRefused(await post(served.url, false, 'fresh', 1));
    const host = await get(served.url, '/api/other');
    expect(host).toMatchObject({ status: 503, text: 'The server is shutting down; retry shortly.' });
    expect(host.headers.get('retry-after')).toBe('5');
    expect(served.http.listening).toBe(true);

    // the idle kept-alive connection was left open: its next request gets 503, then it closes
    kept.socket.write(rawPost('/mcp', callBody('kept', 2)));
    await kept.closed;
    const refused = kept.received().split(/(?=HTTP\/1\.1 )/)[1] ?? '';
    expect(refused).toMatch(/^HTTP\/1\.1 503/);
    expect(refused).toMatch(/connection: close/i);

    expect(await shutdown).toEqual({ finished: 0, cut: 0 });
    expect(served.http.listening).toBe(false);
    await expect(post(served.url, false, 'after', 3)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(app.started).toEqual([]);
  });
});
