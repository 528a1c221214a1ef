import { readFileSync } from 'node:fs';
import { ALLOW, type Connection, createGatehouse, defineGuard, type Guard } from '@gatehousejs/core';
import { createSqliteStores } from '@gatehousejs/stores';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import * as access from '../src/index.js';
import { handBuiltGuards, sqliteSwitches, standardSwitchGuards } from './examples/sqliteSwitches.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The pages this package documents; every TypeScript block on them is quoted from compiled code. */
const PAGES = [
  '../README.md',
  '../../../docs/access/kill-switch.md',
  '../../../docs/access/tenant-binding.md',
  '../../../docs/access/live-rights.md',
  '../../../docs/access/visibility.md',
];
/** Every page about access, its TypeScript checked or not: none names an API the guard contract removed. */
const ALL_PAGES = [...PAGES, '../../../docs/access/credentials.md', '../../../docs/access/rate-limits.md'];
const SOURCES = [
  './examples/notesServer.ts',
  './examples/tenants.ts',
  './examples/oauth.ts',
  './examples/identityProvider.ts',
  './examples/opaqueTokens.ts',
  './examples/cachedPeople.ts',
  './examples/apiRoutes.ts',
  './examples/sqliteSwitches.ts',
  './examples/tenantBinding.ts',
  './examples/visibility.ts',
  './docs.test.ts',
];

/** Lines without their indentation or region markers, so an indented excerpt (or one around a nested quoted region) matches its source. */
const unindent = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => !/^\/\/ #(end)?region [\w-]+$/.test(line))
    .join('\n')
    .trim();
const tsBlocks = (markdown: string) =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
const sources = SOURCES.map((path) => unindent(read(path)));
const quoted = (snippet: string) => sources.some((source) => source.includes(unindent(snippet)));

const connection = (
  tenantId: string,
  more: Partial<Connection<'notes.read'>> = {},
): Connection<'notes.read'> => ({
  connectionId: `conn_${tenantId}`,
  tenantId,
  creatorId: 'p1',
  clientName: 'docs',
  channel: 'mcp',
  rights: new Set(['notes.read']),
  ...more,
});

/** A one-tool server with the guards a kill-switch page example builds, for the drill. */
function switchedServer(guards: readonly Guard[]) {
  const gh = createGatehouse({ rights: ['notes.read'] as const, services: () => ({}) });
  const findNotes = gh.defineTool({
    name: 'find_notes',
    description: 'Lists the notes.',
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({}),
    presenter: { outputSchema: { type: 'object' }, present: () => ({}) },
    run: () => ({}),
  });
  return gh.createServer({
    name: 'notes',
    version: '1.0.0',
    tools: [findNotes],
    authenticate: async () => ({ ok: false, status: 401, reason: 'unused' }),
    guards,
  });
}

describe('access docs', () => {
  it('show only TypeScript copied from compiled, tested files', () => {
    for (const page of PAGES) {
      const blocks = tsBlocks(read(page));
      expect(blocks.length, page).toBeGreaterThan(0);
      for (const snippet of blocks) expect(quoted(snippet), `${page}:\n${snippet}`).toBe(true);
    }
  });

  it('name no API the guard contract removed', () => {
    for (const page of ALL_PAGES) {
      expect(read(page), page).not.toMatch(
        /checkGate|switches\.guard|VisibilityRule|visibility: \[|rate: \{ store:|createServer\(\{ rate/,
      );
    }
  });

  it('name every export of the package in its README, each in an example', () => {
    const readme = read('../README.md');
    const examples = tsBlocks(readme).join('\n');
    for (const name of Object.keys(access)) {
      expect(readme, name).toContain(`\`${name}\``);
      expect(examples, name).toContain(`${name}(`);
    }
  });

  it('run the README server: live rights, plan visibility, the tenant and global switches, audited', async () => {
    const { server, credentials, switches, audit, members, token } = await import(
      './examples/notesServer.js'
    );
    const signIn = async () => {
      const decision = await credentials.authenticate({ token });
      if (!decision.ok) throw new Error(decision.reason);
      return decision.connection;
    };
    const ada = await signIn();
    expect([...ada.rights]).toEqual(['notes.read', 'notes.export']);
    expect((await server.listTools(ada)).map((t) => t.name)).toEqual(['find_notes']);
    expect((await server.callTool(ada, 'find_notes', {})).structuredContent).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n1', text: 'Call Ada' }] },
    });
    const hidden = await server.callTool(ada, 'export_notes', {});
    expect(hidden.structuredContent).toMatchObject({
      error: { code: 'tool_hidden', message: expect.stringContaining('"free" plan') },
    });

    members.set('ws_1/ada', ['notes.export']);
    const cut = await signIn();
    expect([...cut.rights]).toEqual(['notes.export']);
    expect((await server.callTool(cut, 'find_notes', {})).structuredContent).toMatchObject({
      error: { code: 'missing_right' },
    });
    members.delete('ws_1/ada');
    expect(await credentials.authenticate({ token })).toMatchObject({ ok: false, status: 401 });
    members.set('ws_1/ada', ['notes.read', 'notes.export']);

    await switches.setTenantAccess('ws_1', false, { actorId: 'ada', channel: 'admin' });
    expect(await server.listTools(ada)).toEqual([]);
    await switches.setTenantAccess('ws_1', true, { actorId: 'ada', channel: 'admin' });
    await switches.setGlobal(true, { actorId: 'ops_jo', channel: 'cli' });
    expect(await server.admit({ transport: 'http' })).toMatchObject({
      status: 503,
      retryAfterSeconds: 300,
    });
    await switches.setGlobal(false, { actorId: 'ops_jo', channel: 'cli' });
    expect(await server.admit({ transport: 'http' })).toBeUndefined();
    expect(audit.rows.map((r) => [r.action, r.actorId, r.channel])).toEqual([
      ['token.create', 'ada', 'cli'],
      ['switch.set', 'ada', 'admin'],
      ['switch.set', 'ada', 'admin'],
      ['switch.set', 'ops_jo', 'cli'],
      ['switch.set', 'ops_jo', 'cli'],
    ]);
    expect(JSON.stringify(audit.rows)).not.toContain(token);
  });

  it('run the chooseTenant example: only a tenant of the credential, named when it serves several', async () => {
    const { named, unnamed, foreign } = await import('./examples/tenants.js');
    expect(named).toEqual({ ok: true, tenantId: 'ws_2' });
    expect(unnamed).toMatchObject({ ok: false, reason: expect.stringContaining('name one') });
    expect(foreign).toMatchObject({ ok: false, reason: expect.stringContaining('does not serve') });
  });

  it('run the OAuth example: this audience only, rights cut live', async () => {
    const { authenticate } = await import('./examples/oauth.js');
    const ok = await authenticate({ token: 'signed-for-notes' });
    expect(ok.ok && [...ok.connection.rights]).toEqual(['notes.read']);
    expect(await authenticate({ token: 'signed-for-another-server' })).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('run the cachedPeople example: a removed role works until ttlMs has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { directory, people } = await import('./examples/cachedPeople.js');
      const rights = async () => [...((await people.current('ws_1', 'ada'))?.rights ?? [])];
      expect(await rights()).toEqual(['notes.read']);
      directory.set('ws_1/ada', []);
      vi.setSystemTime(Date.now() + 4_999);
      expect(await rights()).toEqual(['notes.read']);
      vi.setSystemTime(Date.now() + 1);
      expect(await rights()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('run the refuseMcpTokens example: 401 for an MCP token in Authorization or a cookie', async () => {
    const { listBookings } = await import('./examples/apiRoutes.js');
    const get = (headers: Record<string, string>) =>
      listBookings(new Request('http://booking.example/api/bookings', { headers }));
    expect((await get({ authorization: 'Bearer ghmcp_abc' })).status).toBe(401);
    expect((await get({ cookie: 'theme=dark; sid=ghmcp_abc' })).status).toBe(401);
    const served = await get({ authorization: 'Bearer api_live_123' });
    expect([served.status, await served.json()]).toEqual([200, { bookings: [] }]);
  });

  it.each([
    ['standardGuards', standardSwitchGuards],
    ['the guards built by hand', (_stores: unknown, switches: access.Switches) => handBuiltGuards(switches)],
  ] as const)(
    'run the kill switch drill of the kill-switch page on the SQLite stores, with %s',
    async (_, guardsOf) => {
      const db = new Database(':memory:');
      try {
        const stores = createSqliteStores(db);
        const switches = sqliteSwitches(stores);
        const server = switchedServer(guardsOf(stores, switches));
        expect(await server.admit({ transport: 'http' })).toBeUndefined();
        expect(await switches.tenantAccess('t1')).toBe(true); // the tenant default
        // #region drill
        await switches.setGlobal(true, { actorId: 'ops_jo', channel: 'cli' }); // every MCP request: 503
        await switches.setTenantAccess('t1', false, { actorId: 'ada', channel: 'admin' }); // t1 sees no tools
        // #endregion drill
        expect(await server.admit({ transport: 'http' })).toMatchObject({
          status: 503,
          retryAfterSeconds: 300,
        });
        expect(await server.listTools(connection('t1'))).toEqual([]);
        expect((await server.listTools(connection('t2'))).length).toBeGreaterThan(0);
        const refused = await server.callTool(connection('t1'), 'find_notes', {});
        expect(refused.structuredContent).toMatchObject({ error: { code: 'tenant_disabled' } });
        const rows = await stores.audit.list({ limit: 10 }); // two rows, in any order within one millisecond
        expect(rows).toHaveLength(2);
        expect(rows.map((r) => [r.action, r.actorId, r.channel, r.note])).toEqual(
          expect.arrayContaining([
            ['switch.set', 'ada', 'admin', 'before: default; after: false'],
            ['switch.set', 'ops_jo', 'cli', 'before: default; after: true'],
          ]),
        );
        await switches.setGlobal(false, { actorId: 'ops_jo', channel: 'cli' });
        expect(await server.admit({ transport: 'http' })).toBeUndefined();
      } finally {
        db.close();
      }
    },
  );

  it('run the tenant-binding example: the transport names one tenant of the credential, another is tenant_mismatch', async () => {
    const { credentials, server, start } = await import('./examples/tenantBinding.js');
    const { token } = await credentials.mint({
      tenantIds: ['ws_1', 'ws_2'],
      creatorId: 'ada',
      rights: ['notes.read'],
      clientLabel: 'docs',
      channel: 'cli',
    });
    await using served = await start();
    const call = (workspace?: string) =>
      fetch(served.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'find_notes',
          ...(workspace ? { 'x-workspace': workspace } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'find_notes',
            arguments: {},
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'docs', version: '0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
    const named = await call('ws_2');
    expect(named.status).toBe(200);
    expect((await named.json()).result.structuredContent).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n2', text: 'Call Bob' }] },
    });
    expect((await call()).status).toBe(403); // a credential of two workspaces must name one
    expect((await call('ws_3')).status).toBe(403); // one the credential does not serve

    // An authenticator of your own that forgets to check the named tenant: the tenant guard refuses.
    const mismatch = connection('ws_1', { transportTenant: 'ws_2' });
    expect(await server.listTools(mismatch)).toEqual([]);
    expect((await server.callTool(mismatch, 'find_notes', {})).structuredContent).toMatchObject({
      error: { code: 'tenant_mismatch' },
    });
    expect((await server.callTool(connection(''), 'find_notes', {})).structuredContent).toMatchObject({
      error: { code: 'tenant_mismatch', message: expect.stringContaining('bound to no tenant') },
    });
    expect(
      (await server.callTool(connection('ws_1', { transportTenant: 'ws_1' }), 'find_notes', {}))
        .structuredContent,
    ).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n1', text: 'Call Ada' }] },
    });
  });

  it('run the tenant-binding example: a tenant-like argument, the tool’s or a guard’s, fails the build', async () => {
    const { gh, guards } = await import('./examples/tenantBinding.js');
    const build = (input: z.ZodObject, extra: readonly Guard[] = []) =>
      gh.createServer({
        name: 'notes',
        version: '1.0.0',
        tools: [
          gh.defineTool({
            name: 'find_notes',
            description: 'Lists the notes of this workspace.',
            effect: 'read',
            requires: ['notes.read'],
            input,
            presenter: { outputSchema: { type: 'object' }, present: () => ({}) },
            run: () => ({}),
          }),
        ],
        authenticate: async () => ({ ok: false, status: 401, reason: 'unused' }),
        guards: [...guards, ...extra],
      });
    expect(() => build(z.object({ team_id: z.string() }))).toThrow(/"team_id" looks like a tenant selector/);
    const refusal = (() => {
      try {
        build(z.object({ team_id: z.string() }));
        return 'built';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(read('../../../docs/access/tenant-binding.md')).toContain(
      `\`${refusal.split(' The tenant comes')[0]}\``,
    );
    expect(() => build(z.object({ query: z.string() }))).not.toThrow();
    const pickWorkspace = defineGuard({
      kind: 'call',
      name: 'pickWorkspace',
      arguments: { workspace: { schema: { type: 'string' } } },
      check: () => ALLOW,
    });
    expect(() => build(z.object({}), [pickWorkspace])).toThrow(/"workspace" looks like a tenant selector/);
  });

  it('run the visibility example: rights, toolset, plan, beta and billing decide the list and the call alike', async () => {
    const { server, overdue } = await import('./examples/visibility.js');
    const names = async (c: Connection<'notes.read'>) => (await server.listTools(c)).map((t) => t.name);
    const error = async (c: Connection<'notes.read'>, name: string) =>
      (
        (await server.callTool(c, name, {})).structuredContent as {
          error?: { code: string; message: string };
        }
      ).error;
    const free = connection('ws_1');
    expect(await names(free)).toEqual(['find_notes']);
    expect(await error(free, 'export_notes')).toMatchObject({
      code: 'tool_hidden',
      message: expect.stringContaining('"free" plan'),
    });
    expect(await error(free, 'summarize_notes')).toMatchObject({
      code: 'tool_hidden',
      message: expect.stringContaining('in beta'),
    });
    const pro = connection('ws_2');
    expect(await names(pro)).toEqual(['find_notes', 'export_notes', 'summarize_notes']);
    expect(await error(pro, 'summarize_notes')).toBeUndefined();
    expect(await names(connection('ws_2', { toolset: 'compact' }))).toEqual(['find_notes']);
    expect(await names(connection('ws_2', { toolset: 'huge' }))).toEqual([]);
    expect(await names(connection('ws_2', { rights: new Set() }))).toEqual([]);
    expect(await error(connection('ws_2', { rights: new Set() }), 'find_notes')).toMatchObject({
      code: 'missing_right',
    });
    overdue.add('ws_2');
    try {
      expect(await names(pro)).toEqual([]);
      expect(await error(pro, 'find_notes')).toMatchObject({
        code: 'tenant_disabled',
        message: expect.stringContaining('overdue invoice'),
      });
      expect(await names(free)).toEqual(['find_notes']);
    } finally {
      overdue.delete('ws_2');
    }
  });
});
