/**
 * docs/oauth.md: every TypeScript block is quoted from a compiled example,
 * and the example behaves as the page says (metadata, step-up, live rights).
 */
import { readFileSync } from 'node:fs';
import { Client, InsufficientScopeError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { issued, members, mounted, server, start } from './examples/oauthScopes.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const page = read('../../../docs/oauth.md');
const unindent = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .trim();
const METADATA_URL = 'https://notes.example/.well-known/oauth-protected-resource/mcp';

const claims = (scopes: string[]) => ({
  audience: 'https://notes.example/mcp',
  subject: 'ada',
  tenantIds: ['ws_1'],
  scopes,
  expiresAt: Date.now() + 3_600_000,
  grantId: 'grant_docs',
  clientLabel: 'docs',
});

describe('docs/oauth.md', () => {
  it('shows only TypeScript copied from the compiled example', () => {
    const source = unindent(
      read('./examples/oauthScopes.ts') +
        read('./examples/identityProvider.ts') +
        read('./examples/opaqueTokens.ts'),
    );
    // sections 1 to 4; section 5 quotes @gatehousejs/oauth's example (its own docs test)
    const ours = page.split('\n## 5. ')[0] ?? '';
    const blocks = [...ours.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
    expect(blocks).toHaveLength(5);
    for (const block of blocks) expect(source, block).toContain(unindent(block));
  });

  it('serves the metadata the page shows, and the 403 challenge it quotes', async () => {
    await using served = await start();
    const document = await (
      await fetch(new URL('/.well-known/oauth-protected-resource/mcp', served.url))
    ).json();
    expect(document).toEqual({
      resource: 'https://notes.example/mcp',
      authorization_servers: ['https://id.notes.example'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['notes:read'],
      resource_name: 'Notes',
    });
    issued.set('at_docs_read_only', claims(['notes:read']));
    const client = new Client({ name: 'docs', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(served.url, {
        requestInit: { headers: { authorization: 'Bearer at_docs_read_only' } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['find_notes', 'export_notes']);
      const error = await client.callTool({ name: 'export_notes', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InsufficientScopeError);
      expect(error).toMatchObject({
        requiredScope: 'notes:export',
        resourceMetadataUrl: new URL(METADATA_URL),
      });
      // the role goes: the tool is hidden on the next list
      members.set('ws_1/ada', ['notes.read']);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['find_notes']);
    } finally {
      members.set('ws_1/ada', ['notes.read', 'notes.export']);
      await client.close();
    }
    const raw = await fetch(served.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer at_docs_read_only',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'export_notes',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'export_notes',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(raw.status).toBe(403);
    const challenge = raw.headers.get('www-authenticate') ?? '';
    const body = await raw.text();
    expect(page).toContain(`WWW-Authenticate: ${challenge}\n`);
    expect(page).toContain(`\n${body}\n`);
  });

  it('mounts the metadata beside createHttpHandler as the page shows', async () => {
    const { metadata, fetch } = mounted();
    expect(metadata.url).toBe(METADATA_URL);
    const response = await fetch(new Request('https://notes.example/.well-known/oauth-protected-resource'));
    expect(response.status).toBe(200);
    const unauthenticated = await fetch(
      new Request('https://notes.example/mcp', { method: 'POST', headers: { host: 'notes.example' } }),
    );
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", resource_metadata="${METADATA_URL}"`,
    );
    expect(server.name).toBe('notes');
  });
});
