/**
 * The checks every framework that serves over a port must pass, against
 * `listen` serving the same server: a tool call through the official SDK
 * client, the same answer (status, headers, body) to every request of
 * {@link parityCases}, a streamed 2025-11-25 answer, the one MCP path, and
 * the console under `/console`.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Listening, listen } from '@gatehousejs/core/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleFlow } from './consoleFlow.js';
import { type NotesProduct, notesProduct } from './examples/notes.js';
import { type Answer, answersOf, exchange, legacyCall, parityCases, sdkCall } from './parity.js';

/** A framework serving the notes product on a loopback port. */
export interface Mounted {
  /** `http://127.0.0.1:<port>`; the MCP endpoint is `/mcp`, the console `/console`. */
  readonly origin: string;
  close(): Promise<void>;
}

/** A node:http server a framework started, as {@link Mounted}: closing cuts its kept-alive connections. */
export function mountedOn(http: Server): Mounted {
  return {
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: async () => {
      http.closeAllConnections(); // the SDK client's and the browser's kept-alive connections
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** What the framework's own JSON route at `/api/echo` received of a JSON body, behind its own parser. */
export async function echoed(state: MountState): Promise<unknown> {
  const answer = await exchange(new URL('/api/echo', state.origin), {
    headers: { 'content-type': 'application/json' },
    body: '{"hello":"world"}',
  });
  return JSON.parse(answer.text);
}

/** A good call sent to `/parsed/mcp`, the MCP route mounted behind the framework's body parser on purpose. */
export function callBehindParser(state: MountState): Promise<Answer> {
  state.errors.length = 0;
  const url = new URL('/parsed/mcp', state.origin);
  const sent = parityCases(url, state.token)['a good call'];
  if (!sent) throw new Error('no good call');
  return exchange(url, sent);
}

/** What a framework's own tests use besides the shared checks. */
export interface MountState {
  readonly notes: NotesProduct;
  /** What the server's `onError` heard. */
  readonly errors: Error[];
  origin: string;
  token: string;
}

/** The notes found by a `find_notes` of "boiler", as structured content. */
export const BOILER_NOTES = {
  status: 'ok',
  result: {
    notes: [
      { id: 'n1', text: 'Call Ada about the boiler' },
      { id: 'n2', text: 'Order boiler parts' },
    ],
  },
};

/** The names of the parity cases, for `it.each`. */
export const CASES = Object.keys(parityCases(new URL('http://localhost/mcp'), 'token'));

/**
 * Registers the shared checks in the calling `describe`: `start` mounts the
 * product on the framework (one server for the whole file).
 */
export function mountedLikeListen(start: (notes: NotesProduct) => Promise<Mounted>): MountState {
  const errors: Error[] = [];
  const state: MountState = {
    notes: notesProduct({ origin: () => state.origin, onError: (error) => errors.push(error) }),
    errors,
    origin: '',
    token: '',
  };
  let mounted: Mounted | undefined;
  let reference: Listening | undefined;
  let expected: Record<string, Answer> = {};
  let answered: Record<string, Answer> = {};
  const mcp = () => new URL('/mcp', state.origin);
  const status = (name: string) => answered[name]?.status;

  beforeAll(async () => {
    state.token = await state.notes.token();
    reference = await listen(state.notes.server, { ...state.notes.mcp, port: 0 });
    mounted = await start(state.notes);
    state.origin = mounted.origin;
    expected = await answersOf(reference.url, state.token);
    answered = await answersOf(mcp(), state.token);
  });

  afterAll(async () => {
    await mounted?.close();
    await reference?.close();
  });

  it('calls a tool through the framework with the official SDK client', async () => {
    expect(await sdkCall(mcp(), state.token)).toEqual(BOILER_NOTES);
  });

  it.each(CASES)('answers %s with the status, headers and body listen gives', (name) => {
    expect(answered[name]).toBeDefined();
    expect(answered[name]).toEqual(expected[name]);
  });

  it('keeps admission’s order, Gatehouse’s body limit and the 401 challenge', () => {
    expect(status('a good call')).toBe(200);
    expect(status('a 1.2 MiB call: over the frameworks’ default limits, within Gatehouse’s')).toBe(200);
    expect(status('an oversized body, declared')).toBe(413);
    expect(answered['an oversized body, chunked']).toMatchObject({
      status: 413,
      headers: { connection: 'close' },
    });
    expect(status('no token and an oversized body')).toBe(401);
    expect(status('a foreign Origin and no token')).toBe(403);
    expect(status('a foreign Host')).toBe(403);
    expect(status('a wrong Mcp-Method header')).toBe(400);
    expect(answered['no token']?.headers['www-authenticate']).toBe(
      'Bearer realm="mcp", resource_metadata="https://notes.example/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('streams a 2025-11-25 answer as listen does', async () => {
    const streamed = await legacyCall(mcp(), state.token);
    expect(streamed).toEqual(await legacyCall(reference?.url ?? mcp(), state.token));
    expect(streamed.status).toBe(200);
    expect(streamed.headers['content-type']).toBe('text/event-stream');
    expect(streamed.headers['cache-control']).toBe('no-cache, no-transform');
    expect(streamed.text).toMatch(/^event: message\ndata: .*Order boiler parts/);
  });

  it('serves the MCP endpoint at /mcp only, not /mcp/, as listen does', async () => {
    const sent = parityCases(mcp(), state.token)['a good call'];
    if (!sent) throw new Error('no good call');
    expect((await exchange(new URL('/mcp/', state.origin), sent)).status).toBe(404);
    expect((await exchange(new URL('/mcp/', reference?.url), sent)).status).toBe(404);
  });

  it('serves the console under /console: sign-in, pages, CSRF-checked forms the MCP endpoint obeys', async () => {
    await consoleFlow(state.notes, state.origin, mcp(), state.token);
  });

  return state;
}
