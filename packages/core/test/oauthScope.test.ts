/**
 * OAuth step-up (I7's one exception): a tool within the person's live rights
 * but outside the access token's scopes is listed, and calling it over HTTP
 * answers 403 `insufficient_scope` naming the scopes to ask for; nothing runs.
 */
import { Client, InsufficientScopeError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { Authenticate, Connection } from '../src/context.js';
import { createHttpHandler } from '../src/http.js';
import { listen } from '../src/node.js';
import { createAdmissionMiddleware } from '../src/serve/v1Admission.js';
import type { GatehouseServer } from '../src/server.js';
import { notesServer, TOKEN_T1 } from './fixtures/notesServer.js';
import { createRequest } from './fixtures/rawRequest.js';
import type { Right } from './fixtures.js';

const SCOPES: Record<string, readonly Right[]> = {
  'notes:read': ['notes.read'],
  'notes:write': ['notes.write'],
};
const OAUTH = {
  resource: 'https://notes.example/mcp',
  authorizationServers: ['https://id.notes.example'],
  scopesSupported: ['notes:read'],
};
const METADATA_URL = 'https://notes.example/.well-known/oauth-protected-resource/mcp';

/**
 * The notes app behind an authenticator that acts like `oauthAuthenticator`
 * with scopes: rights = the token's scopes' rights ∩ the person's live rights
 * (the fixture's grant), listed = the person's live rights.
 */
function scopedNotes(tokenScopes: readonly string[] = ['notes:read']) {
  const app = notesServer();
  const scopes = { current: [...tokenScopes] };
  const authenticate: Authenticate<Right> = async (presented) => {
    const decision = await app.server.authenticate(presented);
    if (!decision.ok) return decision;
    const person = decision.connection.rights;
    const granted = new Set(scopes.current.flatMap((s) => SCOPES[s] ?? []));
    const connection: Connection<Right> = {
      ...decision.connection,
      rights: new Set([...person].filter((r) => granted.has(r))),
      scope: {
        listed: person,
        scopesFor: (rights) => Object.keys(SCOPES).filter((s) => SCOPES[s]?.some((r) => rights.includes(r))),
      },
    };
    return { ok: true, connection };
  };
  const server: GatehouseServer<Right> = { ...app.server, authenticate };
  return { ...app, server, scopes };
}

const bearer = { authorization: `Bearer ${TOKEN_T1}` };
/** What a direct `handler.fetch` needs that a socket would set: the Host header. */
const direct = { ...bearer, host: 'localhost' };
const listRequest = (url: URL) =>
  new Request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
      ...direct,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });

const toolNames = async (response: Response): Promise<string[]> => {
  const text = await response.text();
  const json = text.startsWith('{')
    ? text
    : (text.split('\n').find((l) => l.startsWith('data: ')) ?? '').slice(6);
  return (JSON.parse(json) as { result: { tools: { name: string }[] } }).result.tools
    .map((t) => t.name)
    .sort();
};

describe('createHttpHandler with OAuth scopes (I7 step-up)', () => {
  const url = new URL('http://localhost/mcp');

  it('lists a tool within the person’s rights but outside the token’s scopes', async () => {
    const app = scopedNotes();
    const handler = createHttpHandler(app.server, { oauth: OAUTH });
    const response = await handler.fetch(listRequest(url));
    expect(response.status).toBe(200);
    expect(await toolNames(response)).toEqual([
      'add_note',
      'find_notes',
      'list_recent_changes',
      'note_stats',
    ]);
  });

  it('answers 403 insufficient_scope naming the scope and metadata URL, and runs nothing', async () => {
    const app = scopedNotes();
    const handler = createHttpHandler(app.server, { oauth: OAUTH });
    const rowsBefore = app.rows.length;
    const response = await handler.fetch(createRequest(url, direct, 'stepped note'));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="notes:write", resource_metadata="${METADATA_URL}"`,
    );
    const body = (await response.json()) as { error: { code: number; message: string; data: object } };
    expect(body.error.code).toBe(-32043);
    expect(body.error.data).toEqual({ status: 403, scope: 'notes:write' });
    expect(body.error.message).toContain('add_note');
    // nothing ran: no service call, no row, no audit row
    expect(app.calls()).toEqual([]);
    expect(app.rows).toHaveLength(rowsBefore);
    expect(await app.audit.list({ limit: 10 })).toEqual([]);
    // the refusal is logged without token material
    const logged = JSON.stringify(app.logs);
    expect(logged).toContain('scopes do not grant add_note');
    expect(logged).toContain('"status":403');
    expect(logged).not.toContain(TOKEN_T1);
    expect(JSON.stringify(body)).not.toContain(TOKEN_T1);
  });

  it('runs a call the token’s scopes grant', async () => {
    const app = scopedNotes(['notes:read', 'notes:write']);
    const handler = createHttpHandler(app.server, { oauth: OAUTH });
    const response = await handler.fetch(createRequest(url, direct, 'granted note'));
    expect(response.status).toBe(200);
    expect(app.calls()).toEqual(['create:granted note']);
  });

  it('hides a tool beyond the person’s rights and refuses it as a tool error, not a 403', async () => {
    const app = scopedNotes();
    app.grants.get(TOKEN_T1)!.rights = ['notes.read'];
    const handler = createHttpHandler(app.server, { oauth: OAUTH });
    expect(await toolNames(await handler.fetch(listRequest(url)))).toEqual([
      'find_notes',
      'list_recent_changes',
      'note_stats',
    ]);
    const response = await handler.fetch(createRequest(url, direct, 'beyond'));
    expect(response.status).toBe(200);
    expect(response.headers.get('www-authenticate')).toBeNull();
    const text = await response.text();
    expect(text).toContain('missing_right');
    expect(text).toContain('"isError":true');
    expect(app.calls()).toEqual([]);
  });

  it('drops a tool on the next request when the person loses the right, even within the token’s scopes', async () => {
    const app = scopedNotes(['notes:read', 'notes:write']);
    const handler = createHttpHandler(app.server, { oauth: OAUTH });
    expect(await toolNames(await handler.fetch(listRequest(url)))).toContain('add_note');
    app.grants.get(TOKEN_T1)!.rights = ['notes.read'];
    expect(await toolNames(await handler.fetch(listRequest(url)))).not.toContain('add_note');
    const response = await handler.fetch(createRequest(url, direct, 'after the drop'));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('missing_right');
    expect(app.calls()).toEqual([]);
  });

  it('leaves a connection without OAuth scopes as it was: a missing right is a tool error', async () => {
    const app = notesServer();
    app.grants.get(TOKEN_T1)!.rights = ['notes.read'];
    const handler = createHttpHandler(app.server, { oauth: OAUTH });
    const response = await handler.fetch(createRequest(url, direct, 'plain'));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('missing_right');
    expect(app.calls()).toEqual([]);
  });
});

describe('the pipeline under OAuth scopes (defence in depth)', () => {
  it('refuses a call outside the granted rights as missing_right, naming the scopes to ask for', async () => {
    const app = scopedNotes();
    const decision = await app.server.authenticate({ token: TOKEN_T1 });
    if (!decision.ok) throw new Error('the fixture token is valid');
    const result = await app.server.callTool(decision.connection, 'add_note', { text: 'direct' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: 'error',
      error: {
        code: 'missing_right',
        details: { tool: 'add_note', missing_rights: ['notes.write'], scopes: ['notes:write'] },
      },
    });
    expect(app.calls()).toEqual([]);
    expect(app.rows).toHaveLength(2);
  });
});

describe('the SDK v2 client and a 403 insufficient_scope', () => {
  it('lists the tool, and calling it raises InsufficientScopeError with the challenge', async () => {
    const app = scopedNotes();
    await using served = await listen(app.server, { oauth: OAUTH });
    const client = new Client({ name: 'step-up', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(served.url, { requestInit: { headers: bearer } });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('add_note');
      const error = await client.callTool({ name: 'add_note', arguments: { text: 'sdk' } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InsufficientScopeError);
      expect(error).toMatchObject({
        requiredScope: 'notes:write',
        resourceMetadataUrl: new URL(METADATA_URL),
      });
      expect(app.calls()).toEqual([]);
      // the in-scope tool still works on the same connection
      const found = await client.callTool({ name: 'find_notes', arguments: { query: 'groceries' } });
      expect(found.isError).toBeFalsy();
      expect(app.calls()).toEqual(['find:groceries']);
    } finally {
      await client.close();
    }
  });
});

describe('createAdmissionMiddleware with OAuth scopes (SDK v1 gate)', () => {
  it('answers 403 insufficient_scope before the v1 transport sees the call', async () => {
    const app = scopedNotes();
    const gate = createAdmissionMiddleware(app.server, { oauth: OAUTH });
    const { createServer } = await import('node:http');
    let reachedTransport = false;
    const http = createServer((req, res) =>
      gate(req, res, () => {
        reachedTransport = true;
        res.writeHead(204).end();
      }),
    );
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const address = http.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const response = await fetch(createRequest(new URL(`http://localhost:${port}/mcp`), bearer, 'v1'));
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", scope="notes:write", resource_metadata="${METADATA_URL}"`,
      );
      expect(reachedTransport).toBe(false);
      expect(app.calls()).toEqual([]);
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
