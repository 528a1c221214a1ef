/**
 * docs/oauth.md §5 and the package README: every TypeScript block is quoted
 * from the compiled example (test/examples/notesServer.ts), and the example
 * does what the page says: it serves the metadata, a client authorizes
 * through the consent page, and the MCP endpoint takes the token.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConsolePerson } from '@gatehousejs/console';
import { afterEach, describe, expect, it } from 'vitest';
import { type Product, serveNotes } from './examples/notesServer.js';
import { authorize, browserOf, callTool, redeem } from './flow.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const EXAMPLE = read('./examples/notesServer.ts');
const unindent = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .trim();

/** The text between `// #region name` and `// #endregion name` of the example. */
function region(name: string): string {
  const match = new RegExp(`// #region ${name}\\n([\\s\\S]*?)\\n\\s*// #endregion ${name}`).exec(EXAMPLE);
  if (!match?.[1]) throw new Error(`the example has no region ${name}`);
  return match[1];
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('docs/oauth.md §5 and the README of @gatehousejs/oauth', () => {
  it('quote the compiled example exactly', () => {
    const page = read('../../../docs/oauth.md').split('\n## 5. ')[1]?.split('\n## ')[0] ?? '';
    const quotes = [
      ...page.matchAll(
        /<!-- quote \.\.\/packages\/oauth\/test\/examples\/notesServer\.ts#([\w-]+) -->\n```ts\n([\s\S]*?)^```$/gm,
      ),
    ];
    expect(quotes.map((m) => m[1])).toEqual(['authorization-server', 'mcp', 'console', 'listen', 'clients']);
    for (const [, name = '', block = ''] of quotes)
      expect(unindent(block), name).toBe(unindent(region(name)));
    expect([...page.matchAll(/^```ts$/gm)]).toHaveLength(quotes.length);
    const readme = read('../README.md');
    const [whole] = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(whole).toBe(EXAMPLE);
  });

  it('serves what the page says: a client authorizes through consent and lists the notes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauth-notes-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const sessions = new Map([['session-of-ada-0123456789', 'p_ada']]);
    const product: Product = {
      async personOf(request): Promise<ConsolePerson<'notes.read' | 'notes.write'> | undefined> {
        const token = /(?:^|; )desk_session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1] ?? '';
        const id = sessions.get(token);
        if (!id) return undefined;
        const rights = ['notes.read', 'notes.write'] as const;
        return {
          id,
          name: 'Ada',
          session: token,
          workspaces: [{ id: 'ws_1', name: 'Notes Inc', owner: true, rights }],
        };
      },
      signInUrl: (returnTo) => `/login?next=${encodeURIComponent(returnTo)}`,
      rightsOf: async (workspaceId, personId) =>
        workspaceId === 'ws_1' && personId === 'p_ada' ? ['notes.read', 'notes.write'] : undefined,
      notesOf: async (workspaceId) => (workspaceId === 'ws_1' ? ['Buy milk'] : []),
    };
    const notes = await serveNotes(product, { file: join(dir, 'notes.db') });
    cleanups.push(() => notes.served.close());
    const { origin } = notes;
    const mcpUrl = new URL('/mcp', origin).href;

    const metadata = await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', origin))).json();
    expect(metadata).toMatchObject({
      resource: mcpUrl,
      authorization_servers: [origin],
      scopes_supported: ['notes.read'],
      resource_name: 'Notes',
    });

    const browser = browserOf(origin, 'session-of-ada-0123456789');
    const tokens = await redeem(
      origin,
      mcpUrl,
      await authorize(browser, mcpUrl, { rights: ['notes.read'], scope: 'notes.read' }),
    );
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const call = await callTool(origin, String(tokens.body.access_token), 'list_notes');
    expect(call.status).toBe(200);
    expect(call.text).toContain('Buy milk');
  });
});
