/**
 * The console mounted under `/console` in a framework, driven as a browser
 * would: the sign-in redirect, a page whose links and forms carry the base
 * path, a CSRF- and Origin-checked form that changes a switch the MCP
 * endpoint then obeys, and the refusals that change nothing.
 */
import { FormBrowser, RawHttpClient } from '@gatehousejs/testing';
import { expect } from 'vitest';
import type { NotesProduct } from './examples/notes.js';

/** Sends one request to a handler over HTTP or in process, as `FormBrowser` takes it. */
type Send = (request: Request) => Promise<Response>;

/** A `find_notes` call through the MCP endpoint: the result's structured content. */
async function findNotes(mcp: URL | Send, token: string) {
  if (typeof mcp === 'function') {
    const client = new RawHttpClient({ url: 'http://localhost/mcp', era: '2026-07-28' });
    const { body, headers } = client.prepare('tools/call', {
      name: 'find_notes',
      arguments: { query: 'boiler' },
    });
    const response = await mcp(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}`, host: 'localhost' },
        body: JSON.stringify(body),
      }),
    );
    return ((await response.json()) as { result: { structuredContent: unknown } }).result.structuredContent;
  }
  const client = new RawHttpClient({
    url: mcp,
    era: '2026-07-28',
    headers: { authorization: `Bearer ${token}` },
  });
  return (await client.callTool('find_notes', { query: 'boiler' })).result?.structuredContent;
}

/**
 * Runs the console flow against `origin` (over HTTP), or `send` (in process,
 * for a route handler), with the MCP endpoint at `mcp`.
 */
export async function consoleFlow(
  notes: NotesProduct,
  origin: string,
  mcp: URL | Send,
  token: string,
  send?: Send,
): Promise<void> {
  const visitor = new FormBrowser(origin, send);
  const away = await visitor.get('/console/switches');
  expect(away.status).toBe(303);
  expect(away.headers.get('location')).toBe('/login?next=%2Fconsole%2Fswitches');

  const ada = new FormBrowser(origin, send);
  ada.jar.set('notes_session', notes.signIn(`session-${origin}`));
  const page = await ada.get('/console/switches');
  expect(page.status).toBe(200);
  expect(page.text).toContain('action="/console/switches/workspace"');
  expect(page.text).toContain('href="/console/tokens"');
  expect(ada.csrf).toBeDefined();

  // refused: no CSRF token, another site's Origin; nothing changes
  expect((await ada.post('/console/switches/workspace', { on: '0' }, { csrf: null })).status).toBe(403);
  const foreign = await ada.post(
    '/console/switches/workspace',
    { on: '0' },
    { origin: 'https://evil.example' },
  );
  expect(foreign.status).toBe(403);
  expect(await notes.switches.tenantAccess('ws_acme')).toBe(true);

  // the form through the framework: agent access off, and the MCP endpoint beside it obeys
  const off = await ada.post('/console/switches/workspace', { on: '0', workspace: 'ws_acme' });
  expect(off.status).toBe(303);
  expect(off.headers.get('location')).toBe('/console/switches');
  expect(off.cookies.length).toBeGreaterThan(0);
  for (const line of off.cookies) expect(line).toMatch(/^[\w-]+=[^;,]*; HttpOnly; Path=\/; SameSite=Lax/);
  expect(await notes.switches.tenantAccess('ws_acme')).toBe(false);
  expect(JSON.stringify(await findNotes(mcp, token))).toContain('tenant_disabled');
  const shown = await ada.get('/console/switches'); // the one-time message the redirect left
  expect(shown.status).toBe(200);
  expect((await ada.post('/console/switches/workspace', { on: '1', workspace: 'ws_acme' })).status).toBe(303);
  expect(await notes.switches.tenantAccess('ws_acme')).toBe(true);
  expect(await findNotes(mcp, token)).toEqual({
    status: 'ok',
    result: {
      notes: [
        { id: 'n1', text: 'Call Ada about the boiler' },
        { id: 'n2', text: 'Order boiler parts' },
      ],
    },
  });
}
