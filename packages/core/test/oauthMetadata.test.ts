/**
 * OAuth protected-resource metadata (RFC 9728), as the MCP 2026-07-28
 * authorization spec requires of a server: served by `listen`, mountable for
 * `createHttpHandler`, and named by the 401 challenge.
 */
import { request } from 'node:http';
import { discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors.js';
import { createHttpHandler } from '../src/http.js';
import { listen } from '../src/node.js';
import { protectedResourceMetadata } from '../src/serve/oauthMetadata.js';
import { notesServer, TOKEN_T1 } from './fixtures/notesServer.js';
import { createRequest } from './fixtures/rawRequest.js';

const OAUTH = {
  resource: 'https://notes.example/mcp',
  authorizationServers: ['https://id.notes.example'],
  scopesSupported: ['notes:read'],
  resourceName: 'Notes',
};
const DOCUMENT = {
  resource: 'https://notes.example/mcp',
  authorization_servers: ['https://id.notes.example'],
  bearer_methods_supported: ['header'],
  scopes_supported: ['notes:read'],
  resource_name: 'Notes',
};
const METADATA_URL = 'https://notes.example/.well-known/oauth-protected-resource/mcp';

describe('listen with oauth', () => {
  it('serves the metadata at the root and path-suffixed well-known paths, without authentication', async () => {
    const app = notesServer();
    const seen: string[] = [];
    await using served = await listen(app.server, {
      oauth: OAUTH,
      fetch: (request) => {
        seen.push(new URL(request.url).pathname);
        return new Response('host', { status: 200 });
      },
    });
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(new URL(path, served.url));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      const document = await response.json();
      expect(document).toEqual(DOCUMENT);
    }
    // neither the gate nor the host's handler saw them
    expect(app.authCalls).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('is found, and parsed as well-formed, by the SDK client’s discovery from the MCP URL', async () => {
    const app = notesServer();
    await using served = await listen(app.server, { oauth: OAUTH });
    const discovered = await discoverOAuthProtectedResourceMetadata(served.url);
    expect(discovered).toMatchObject(DOCUMENT);
  });

  it('answers HEAD with the headers and no body, and refuses POST with 405', async () => {
    const app = notesServer();
    await using served = await listen(app.server, { oauth: OAUTH });
    const url = new URL('/.well-known/oauth-protected-resource/mcp', served.url);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json');
    expect(await head.text()).toBe('');
    const post = await fetch(url, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // a method no web Request may carry is answered too, and the server keeps serving
    const trace = await new Promise<number | undefined>((resolve, reject) =>
      request(url, { method: 'TRACE' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
        .on('error', reject)
        .end(),
    );
    expect(trace).toBe(405);
    expect((await fetch(url)).status).toBe(200);
  });

  it('names the metadata and the starting scopes in the 401 challenge', async () => {
    const app = notesServer();
    await using served = await listen(app.server, { oauth: OAUTH });
    const missing = await fetch(createRequest(served.url, {}));
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", scope="notes:read", resource_metadata="${METADATA_URL}"`,
    );
    const wrong = await fetch(createRequest(served.url, { authorization: 'Bearer ghmcp_wrong_token_value' }));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", error="invalid_token", scope="notes:read", resource_metadata="${METADATA_URL}"`,
    );
    const text = `${await wrong.text()}${JSON.stringify(app.logs)}`;
    expect(text).not.toContain('ghmcp_wrong_token_value');
    expect(app.calls()).toEqual([]);
  });

  it('keeps an explicit resourceMetadataUrl in the challenge', async () => {
    const app = notesServer();
    await using served = await listen(app.server, {
      oauth: OAUTH,
      resourceMetadataUrl: 'https://proxy.example/.well-known/oauth-protected-resource/mcp',
    });
    const response = await fetch(createRequest(served.url, {}));
    expect(response.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://proxy.example/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('refuses bad options up front with a ConfigurationError', async () => {
    const app = notesServer();
    const bad = [
      { ...OAUTH, resource: 'http://notes.example/mcp' },
      { ...OAUTH, resource: 'https://notes.example/mcp#frag' },
      { ...OAUTH, authorizationServers: [] },
      { ...OAUTH, scopesSupported: ['notes read'] },
    ];
    for (const oauth of bad) {
      await expect(listen(app.server, { oauth })).rejects.toThrow(ConfigurationError);
    }
    await expect(
      listen(app.server, { oauth: OAUTH, path: '/.well-known/oauth-protected-resource' }),
    ).rejects.toThrow(/metadata endpoint/);
  });
});

describe('protectedResourceMetadata', () => {
  it('mounts beside createHttpHandler: its paths answer, every other path falls through', async () => {
    const app = notesServer();
    const metadata = protectedResourceMetadata(OAUTH);
    const handler = createHttpHandler(app.server, { oauth: OAUTH });
    const route = (request: Request) => metadata.fetch(request) ?? handler.fetch(request);
    expect(metadata.url).toBe(METADATA_URL);
    expect(metadata.paths).toEqual([
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]);
    const served = await route(new Request('http://localhost/.well-known/oauth-protected-resource/mcp'));
    expect(await served.json()).toEqual(DOCUMENT);
    expect(metadata.fetch(new Request('http://localhost/mcp'))).toBeUndefined();
    const mcp = await route(createRequest(new URL('http://localhost/mcp'), { host: 'localhost' }));
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain(`resource_metadata="${METADATA_URL}"`);
    expect(app.authCalls).toEqual([]);
  });

  it('serves the root path only for a resource at the origin', () => {
    const metadata = protectedResourceMetadata({
      resource: 'https://notes.example',
      authorizationServers: ['https://id.notes.example'],
    });
    expect(metadata.paths).toEqual(['/.well-known/oauth-protected-resource']);
    expect(metadata.url).toBe('https://notes.example/.well-known/oauth-protected-resource');
    expect(metadata.document).not.toHaveProperty('scopes_supported');
  });

  it('accepts http only on a loopback host', () => {
    expect(
      protectedResourceMetadata({
        resource: 'http://127.0.0.1:3333/mcp',
        authorizationServers: ['http://localhost:4000'],
      }).url,
    ).toBe('http://127.0.0.1:3333/.well-known/oauth-protected-resource/mcp');
    expect(() =>
      protectedResourceMetadata({
        resource: 'http://example.com/mcp',
        authorizationServers: ['https://id.example'],
      }),
    ).toThrow(/https/);
  });
});

describe('a valid token is unaffected by oauth', () => {
  it('runs the call as before', async () => {
    const app = notesServer();
    await using served = await listen(app.server, { oauth: OAUTH });
    const response = await fetch(
      createRequest(served.url, { authorization: `Bearer ${TOKEN_T1}` }, 'with oauth'),
    );
    expect(response.status).toBe(200);
    expect(app.calls()).toEqual(['create:with oauth']);
  });
});
