/**
 * The notes product as Next.js route handlers (examples/next/app/…/route.ts):
 * the route modules' exported GET, POST and DELETE called with `NextRequest`s
 * of `next/server`, as Next calls them (no `next build`), against `listen`
 * serving the same server over HTTP.
 */
import { type Listening, listen } from '@gatehousejs/core/node';
import { NextRequest } from 'next/server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleFlow } from './consoleFlow.js';
import * as consoleRoute from './examples/next/app/console/[[...path]]/route.js';
import * as mcpRoute from './examples/next/app/mcp/route.js';
import { notes } from './examples/next/notes.js';
import { type Answer, answersOf, parityCases, type Sent, sdkCall } from './parity.js';
import { BOILER_NOTES, CASES } from './suite.js';

const ORIGIN = 'http://localhost:3000';
const MCP = new URL('/mcp', ORIGIN);

type Handler = (request: NextRequest) => Promise<Response>;
type Route = Readonly<Record<string, unknown>>;

/** The exported handler of a route module for a method, as Next picks it; 405 without one. */
function handlerOf(route: Route, method: string): Handler | undefined {
  const handler = route[method];
  return typeof handler === 'function' ? (handler as Handler) : undefined;
}

/** What Next's router does for these two routes: the module by path, the export by method. */
async function route(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const module: Route | undefined =
    pathname === '/mcp'
      ? mcpRoute
      : pathname === '/console' || pathname.startsWith('/console/')
        ? consoleRoute
        : undefined;
  if (!module) return new Response('Not found', { status: 404 });
  const handler = handlerOf(module, request.method);
  if (!handler) return new Response(null, { status: 405 });
  // a request Next's server received always carries its Host header; one built in process may not
  const headers = new Headers(request.headers);
  if (!headers.has('host')) headers.set('host', new URL(request.url).host);
  const next = new NextRequest(request.url, {
    method: request.method,
    headers,
    body: request.body,
    duplex: 'half',
  } as ConstructorParameters<typeof NextRequest>[1]);
  return handler(next);
}

/** A request of the parity cases as Next hands it to a route: its Host header, the body streamed when chunked. */
function nextRequest(sent: Sent): Request {
  let left = sent.chunked ?? 0;
  const chunked = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left <= 0) return controller.close();
      const size = Math.min(64 * 1024, left);
      left -= size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  const body: BodyInit | undefined = sent.chunked !== undefined ? chunked : sent.body;
  return new Request(MCP, {
    method: sent.method ?? 'POST',
    headers: { host: 'localhost:3000', ...sent.headers },
    ...(body === undefined ? {} : { body, duplex: 'half' }),
  } as RequestInit);
}

/** An answer as the tests compare it: framing and connection headers left out (Next's server writes those). */
async function comparableResponse(response: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers)
    if (!['content-length', 'connection'].includes(name)) headers[name] = value;
  return { status: response.status, headers, text: await response.text() };
}

const withoutConnection = (answer: Answer | undefined): Answer | undefined => {
  if (!answer) return undefined;
  const { connection: _, ...headers } = answer.headers;
  return { ...answer, headers };
};

describe('the Next.js route handlers app/mcp/route.ts and app/console/[[...path]]/route.ts', () => {
  let reference: Listening;
  let token: string;
  let expected: Record<string, Answer>;
  const answered: Record<string, Answer> = {};
  const raw: Record<string, Response> = {};

  beforeAll(async () => {
    token = await notes.token();
    reference = await listen(notes.server, { ...notes.mcp, port: 0 });
    expected = await answersOf(reference.url, token);
    for (const [name, sent] of Object.entries(parityCases(MCP, token))) {
      const response = await route(nextRequest(sent));
      raw[name] = response.clone();
      answered[name] = await comparableResponse(response);
    }
  });

  afterAll(async () => {
    await reference?.close();
  });

  it('exports POST, GET and DELETE for MCP, GET and POST for the console', () => {
    expect(Object.keys(mcpRoute).sort()).toEqual(['DELETE', 'GET', 'POST']);
    expect(Object.keys(consoleRoute).sort()).toEqual(['GET', 'POST']);
  });

  it('calls a tool through the route handler with the official SDK client', async () => {
    const fetch = (url: string | URL, init?: RequestInit) => route(new Request(url, init));
    expect(await sdkCall(MCP, token, fetch)).toEqual(BOILER_NOTES);
  });

  it.each(CASES)('answers %s with the status, headers and body listen gives', (name) => {
    expect(answered[name]).toBeDefined();
    expect(answered[name]).toEqual(withoutConnection(expected[name]));
  });

  it('keeps admission’s order, Gatehouse’s body limit (Connection: close on 413) and the 401 challenge', () => {
    expect(answered['a good call']?.status).toBe(200);
    expect(answered['no token and an oversized body']?.status).toBe(401);
    expect(answered['a foreign Origin and no token']?.status).toBe(403);
    expect(raw['an oversized body, chunked']?.status).toBe(413);
    expect(raw['an oversized body, chunked']?.headers.get('connection')).toBe('close');
    expect(answered['no token']?.headers['www-authenticate']).toMatch(
      /resource_metadata="https:\/\/notes\.example/,
    );
  });

  it('serves the console under /console: sign-in, pages, CSRF-checked forms the MCP endpoint obeys', async () => {
    await consoleFlow(notes, ORIGIN, route, token, route);
  });
});
