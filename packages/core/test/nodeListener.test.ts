/**
 * The node:http bridge as frameworks use it: `toNodeListener` for any fetch
 * handler (the console's), and `createNodeListener` behind a router that
 * strips its mount path or a parser that read the body first.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../src/http.js';
import { ConfigurationError, type ErrorFacts } from '../src/index.js';
import { createNodeListener, type NodeListener, toNodeListener } from '../src/node.js';
import { notesServer, SECRET_ERROR, TOKEN_T1 } from './fixtures/notesServer.js';
import { createRequest } from './fixtures/rawRequest.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, done: () => void) => void;

/** A node:http server running `before` (a router, a parser) and then `listener`. */
async function serve(listener: NodeListener, before?: Middleware) {
  const http = createServer((req, res) => {
    if (before) before(req, res, () => void listener(req, res));
    else void listener(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    origin,
    async [Symbol.asyncDispose]() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** What Express's `app.use('/console', …)` does: the mount path moves from `url` to `originalUrl`. */
const mountedAt =
  (prefix: string): Middleware =>
  (req, _res, done) => {
    const url = req.url ?? '/';
    Object.assign(req, { originalUrl: url, url: url.slice(prefix.length) || '/' });
    done();
  };

/** What `express.json()` does ahead of a route: reads the whole body and parses it. */
const parsesFirst: Middleware = (req, _res, done) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString() || 'null') });
    done();
  });
};

describe('toNodeListener', () => {
  it('hands the handler the whole path under a router’s mount, the headers, the body and the node request; each cookie on a line', async () => {
    const seen: string[] = [];
    const listener = toNodeListener(async (request, incoming) => {
      const url = new URL(request.url);
      const peer = incoming?.socket.remoteAddress;
      seen.push(
        `${request.method} ${url.pathname}${url.search} ${request.headers.get('x-kind')} ${await request.text()} ${peer}`,
      );
      const headers = new Headers({ 'content-type': 'text/html' });
      headers.append('set-cookie', 'a=1; Path=/; HttpOnly');
      headers.append('set-cookie', 'b=2; Path=/; HttpOnly');
      return new Response('<p>ok</p>', { status: 303, headers });
    });
    await using served = await serve(listener, mountedAt('/console'));
    const response = await fetch(`${served.origin}/console/switches/workspace?x=1`, {
      method: 'POST',
      headers: { 'x-kind': 'form', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'on=0',
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    expect(await response.text()).toBe('<p>ok</p>');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Path=/; HttpOnly']);
    expect(seen).toEqual(['POST /console/switches/workspace?x=1 form on=0 127.0.0.1']);
  });

  it('writes a streamed response as it comes, before the stream ends', async () => {
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const listener = toNodeListener(() => {
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode('data: first\n\n'));
          await finished;
          controller.enqueue(new TextEncoder().encode('data: last\n\n'));
          controller.close();
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    await using served = await serve(listener);
    const response = await fetch(`${served.origin}/events`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
    finish();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read())
      rest += new TextDecoder().decode(next.value);
    expect(rest).toBe('data: last\n\n');
  });

  it('answers a handler that throws with a bare 500 naming no cause, and tells onError', async () => {
    const told: { error: Error; facts: ErrorFacts }[] = [];
    const listener = toNodeListener(
      () => {
        throw new Error(SECRET_ERROR);
      },
      { onError: (error, facts) => told.push({ error, facts }) },
    );
    await using served = await serve(listener);
    const response = await fetch(`${served.origin}/console`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('Internal Server Error');
    expect(told.map(({ error, facts }) => [error.message, facts])).toEqual([
      [SECRET_ERROR, { kind: 'fault', transport: 'http' }],
    ]);
  });

  it('refuses a body a parser read first with a bare 500, the handler unasked, and names the fix to onError', async () => {
    const told: Error[] = [];
    let asked = 0;
    const listener = toNodeListener(
      () => {
        asked++;
        return new Response('ok');
      },
      { onError: (error) => told.push(error) },
    );
    await using served = await serve(listener, parsesFirst);
    const response = await fetch(`${served.origin}/console/switches`, { method: 'POST', body: '{"on":0}' });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('Internal Server Error');
    expect(asked).toBe(0);
    expect(told).toHaveLength(1);
    expect(ConfigurationError.is(told[0])).toBe(true);
    expect(told[0]?.message).toMatch(/read before the handler.*Mount the route before the parser/);
  });

  it('refuses options that are not functions at configuration', () => {
    expect(() => toNodeListener('nope' as never)).toThrow(ConfigurationError);
    expect(() => toNodeListener(() => new Response(), { onError: 'log' as never })).toThrow(/onError/);
  });
});

describe('createNodeListener behind a framework', () => {
  it('serves the MCP endpoint under a router’s mount path as at the root', async () => {
    const app = notesServer();
    const seen: (string | undefined)[] = [];
    const listener = createNodeListener(app.server, {
      tenantFrom: (request) => {
        seen.push(new URL(request.url).pathname);
        return undefined;
      },
    });
    await using served = await serve(listener, mountedAt('/api'));
    const response = await fetch(
      createRequest(new URL('/api/mcp', served.origin), { authorization: `Bearer ${TOKEN_T1}` }, 'mounted'),
    );
    expect(response.status).toBe(200);
    expect(seen).toEqual(['/api/mcp']);
    expect(app.calls()).toEqual(['create:mounted']);
  });

  it('answers a body a parser read first with the bare JSON-RPC 500 and runs nothing', async () => {
    const app = notesServer();
    await using served = await serve(createNodeListener(app.server), parsesFirst);
    const response = await fetch(
      createRequest(new URL('/mcp', served.origin), { authorization: `Bearer ${TOKEN_T1}` }, 'parsed'),
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error' },
    });
    expect(app.calls()).toEqual([]);
    expect(app.reported.map((error) => ConfigurationError.is(error))).toEqual([true]);
  });
});

describe('createHttpHandler', () => {
  it('answers a Request whose body something read first (c.req.json()) with a 500, and names the fix to onError', async () => {
    const app = notesServer();
    const handler = createHttpHandler(app.server);
    const request = createRequest(new URL('http://localhost/mcp'), {
      authorization: `Bearer ${TOKEN_T1}`,
      host: 'localhost',
    });
    await request.json(); // what a framework's body helper does to the raw request
    const response = await handler.fetch(request);
    expect(response.status).toBe(500);
    expect(app.calls()).toEqual([]);
    expect(app.reported).toHaveLength(1);
    expect(ConfigurationError.is(app.reported[0])).toBe(true);
    expect(app.reported[0]?.message).toMatch(/c\.req\.json\(\)/);
  });
});
