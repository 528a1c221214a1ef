/**
 * `listen`'s `fetch` option: the host's own paths (a REST API, admin routes)
 * share the port with the MCP endpoint, and never the other way round.
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors.js';
import { type FetchHandler, listen } from '../src/node.js';
import { LEAKS, notesServer, SECRET_ERROR, TOKEN_T1 } from './fixtures/notesServer.js';
import { createRequest } from './fixtures/rawRequest.js';

/** A raw 2026-07-28 `tools/call` of `add_note`. */
const addNote = (url: URL, headers: Record<string, string>, text: string): Promise<Response> =>
  fetch(createRequest(url, headers, text));

/** A host handler that records what it was given and answers 201 with a JSON echo. */
function recordingHandler() {
  const seen: { method: string; path: string; query: string; auth: string | null; body: string }[] = [];
  const fetch: FetchHandler = async (request) => {
    const url = new URL(request.url);
    seen.push({
      method: request.method,
      path: url.pathname,
      query: url.search,
      auth: request.headers.get('authorization'),
      body: await request.text(),
    });
    return Response.json({ echoed: url.pathname }, { status: 201, headers: { 'x-host': 'api' } });
  };
  return { seen, fetch };
}

describe('listen', () => {
  it('hands a non-MCP path to the fetch handler, with method, query, headers and body, and returns its response', async () => {
    const app = notesServer();
    const host = recordingHandler();
    await using served = await listen(app.server, { fetch: host.fetch });
    const response = await fetch(new URL('/api/notes?limit=2', served.url), {
      method: 'POST',
      headers: { authorization: 'Bearer api_token_1', 'content-type': 'application/json' },
      body: '{"text":"hi"}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-host')).toBe('api');
    expect(await response.json()).toEqual({ echoed: '/api/notes' });
    expect(host.seen).toEqual([
      {
        method: 'POST',
        path: '/api/notes',
        query: '?limit=2',
        auth: 'Bearer api_token_1',
        body: '{"text":"hi"}',
      },
    ]);
    // the MCP gate did not run for the host's path: its credential is the host's business
    expect(app.authCalls).toEqual([]);
    expect(app.calls()).toEqual([]);
  });

  it('never hands the MCP path to the fetch handler, whether the gate admits or refuses the request', async () => {
    const app = notesServer();
    const host = recordingHandler();
    await using served = await listen(app.server, { fetch: host.fetch });
    const admitted = await addNote(served.url, { authorization: `Bearer ${TOKEN_T1}` }, 'via mcp');
    expect(admitted.status).toBe(200);
    await admitted.text();
    const refused = await addNote(served.url, {}, 'no token');
    expect(refused.status).toBe(401);
    const query = await addNote(new URL('/mcp?x=1', served.url), {}, 'with a query');
    expect(query.status).toBe(401);
    expect(host.seen).toEqual([]);
    expect(app.rows.map((row) => row.text)).toContain('via mcp');
    expect(app.rows.map((row) => row.text)).not.toContain('no token');
  });

  it('serves the MCP endpoint at a custom path and hands the default /mcp to the host', async () => {
    const app = notesServer();
    const host = recordingHandler();
    await using served = await listen(app.server, {
      path: '/agent',
      fetch: host.fetch,
    });
    expect(served.url.pathname).toBe('/agent');
    expect((await addNote(served.url, {}, 'x')).status).toBe(401);
    expect((await fetch(new URL('/mcp', served.url))).status).toBe(201);
    expect(host.seen.map((s) => s.path)).toEqual(['/mcp']);
  });

  it('turns a throwing or rejecting handler into a bare 500 that names no cause, and reports the error', async () => {
    const app = notesServer();
    const handlers: FetchHandler[] = [
      () => {
        throw new Error(SECRET_ERROR);
      },
      () => Promise.reject(new Error(SECRET_ERROR)),
    ];
    for (const handler of handlers) {
      await using served = await listen(app.server, { fetch: handler });
      const response = await fetch(new URL('/api/boom', served.url));
      expect(response.status).toBe(500);
      const body = await response.text();
      for (const leak of LEAKS) expect(body).not.toContain(leak);
    }
    expect(app.reported.map((error) => error.message)).toEqual([SECRET_ERROR, SECRET_ERROR]);
  });

  it('keeps each Set-Cookie of a host response a header line of its own (a comma join would merge cookies)', async () => {
    const app = notesServer();
    const handler: FetchHandler = async () => {
      const headers = new Headers();
      headers.append('set-cookie', 'pre=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
      headers.append('set-cookie', 'session=abc; Path=/; HttpOnly; SameSite=Lax');
      headers.set('location', '/');
      return new Response(null, { status: 303, headers });
    };
    await using served = await listen(app.server, { fetch: handler });
    const response = await fetch(new URL('/signin', served.url), { redirect: 'manual' });
    expect(response.headers.getSetCookie()).toEqual([
      'pre=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
      'session=abc; Path=/; HttpOnly; SameSite=Lax',
    ]);
  });

  it('answers 404 on other paths when no fetch handler is given', async () => {
    const app = notesServer();
    await using served = await listen(app.server);
    const response = await fetch(new URL('/api/notes', served.url));
    expect(response.status).toBe(404);
    expect(app.authCalls).toEqual([]);
  });

  it('refuses a fetch option that is not a function', async () => {
    const app = notesServer();
    const fetchOption = { fetch: 'nope' } as unknown as { fetch: FetchHandler };
    await expect(listen(app.server, fetchOption)).rejects.toSatisfy(ConfigurationError.is);
  });
});
