import {
  ALLOW,
  type Authenticate,
  type Connection,
  createGatehouse,
  MemoryAuditStore,
  MemoryReplayStore,
  MemorySwitchStore,
  type ServerOptions,
  separateCommits,
} from '@gatehousejs/core';
import { killSwitchGuards } from '@gatehousejs/guards';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type TestPolicy, withGuards } from '../../../test/withGuards.js';
import {
  cachedPeople,
  createSwitches,
  oauthAuthenticator,
  planVisibility,
  refuseMcpTokens,
} from '../src/index.js';
import { People } from './desk.js';

const connection: Connection = {
  connectionId: 'c1',
  tenantId: 't1',
  creatorId: 'alice',
  clientName: 'x',
  channel: 'mcp',
  rights: new Set(),
};
const broken = {
  get: () => Promise.reject(new Error('redis down')),
  set: () => Promise.reject(new Error('x')),
};
const authenticate: Authenticate<'notes.write'> = async () => ({ ok: false, status: 401, reason: 'unused' });

/** A server with one read and one write tool; `set_status` counts its runs. */
function statusDesk(
  options: {
    server?: Omit<Partial<ServerOptions<'notes.write', object>>, 'guards'> & TestPolicy<'notes.write'>;
  } = {},
) {
  let runs = 0;
  const gh = createGatehouse({ rights: ['notes.write'] as const, services: () => ({}) });
  const tools = [
    gh.defineTool({
      name: 'find_notes',
      description: 'Lists the notes.',
      effect: 'read',
      input: z.object({}),
      presenter: { outputSchema: { type: 'object' }, present: () => ({}) },
      run: () => {
        runs++;
        return {};
      },
    }),
    gh.defineTool({
      name: 'set_status',
      description: 'Sets the status of the note.',
      effect: 'write',
      input: z.object({ status: z.string() }),
      presenter: {
        outputSchema: { type: 'object', properties: { id: { type: 'string' }, run: { type: 'integer' } } },
        present: (value: { id: string; run: number }) => value,
      },
      run: () => ({ id: 'n1', run: ++runs }),
    }),
  ];
  const server = gh.createServer(
    withGuards({
      name: 'notes',
      version: '1',
      tools,
      authenticate,
      audit: new MemoryAuditStore(),
      replay: { store: new MemoryReplayStore() },
      unitOfWork: separateCommits(),
      ...options.server,
    }),
  );
  const call = (tool: string, args: Record<string, unknown>) =>
    server.callTool(connection as Connection<'notes.write'>, tool, args);
  return { server, call, runs: () => runs };
}

describe('createSwitches', () => {
  it('refuses a bad retry hint and fails closed when the tenant switch cannot be read', async () => {
    const switches = createSwitches({ store: broken, audit: new MemoryAuditStore() });
    expect(() => killSwitchGuards({ switches, retryAfterSeconds: 0 })).toThrow(/retryAfterSeconds/);
    const [admission, tenantSwitch] = killSwitchGuards({ switches });
    expect(await tenantSwitch.connection!(connection)).toMatchObject({
      ok: false,
      code: 'store_unavailable',
    });
    await expect(Promise.resolve(admission.admit({ transport: 'http' }))).rejects.toThrow('redis down');
    const desk = statusDesk({ server: { switches } });
    expect(await desk.server.listTools(connection as Connection<'notes.write'>)).toEqual([]);
    expect((await desk.call('set_status', { status: 'A' })).structuredContent).toMatchObject({
      error: { code: 'store_unavailable' },
    });
    expect(desk.runs()).toBe(0);
  });

  it('refuses a store or an audit that is not one, since every change is audited', () => {
    expect(() => createSwitches({ store: {} as never, audit: new MemoryAuditStore() })).toThrow(
      /SwitchStore/,
    );
    expect(() => createSwitches({ store: new MemorySwitchStore(), audit: undefined as never })).toThrow(
      /AuditStore/,
    );
  });

  it('uses the tenant default defined once', async () => {
    const off = createSwitches({
      store: new MemorySwitchStore(),
      audit: new MemoryAuditStore(),
      tenantDefault: false,
    });
    const [, tenantSwitch] = killSwitchGuards({ switches: off });
    expect(await tenantSwitch.connection!(connection)).toMatchObject({ ok: false, code: 'tenant_disabled' });
    expect(await tenantSwitch.connection!({ ...connection, tenantId: 't2' })).toMatchObject({
      ok: false,
      code: 'tenant_disabled',
    });
    await off.setTenantAccess('t1', true, { actorId: 'a', channel: 'admin' });
    expect(await off.tenantAccess('t1')).toBe(true);
    expect(await tenantSwitch.connection!(connection)).toEqual(ALLOW);
    expect(await off.tenantAccess('t2')).toBe(false);
    expect(await tenantSwitch.connection!({ ...connection, tenantId: 't2' })).toMatchObject({
      ok: false,
      code: 'tenant_disabled',
    });
  });
});

describe('oauthAuthenticator (I21)', () => {
  const people = new People();
  people.set('t1', 'alice', { active: true, rights: ['notes.read'] });
  const claims = {
    audience: 'https://mcp.example/mcp',
    subject: 'alice',
    tenantIds: ['t1'],
    rights: ['notes.read', 'notes.write'],
    expiresAt: 10_000,
    grantId: 'g1',
    clientLabel: 'claude',
  };
  const authenticate = oauthAuthenticator({
    verify: async (token) =>
      token === 'good'
        ? claims
        : token === 'other-aud'
          ? { ...claims, audience: ['https://other.example'] }
          : token === 'old'
            ? { ...claims, expiresAt: 1 }
            : undefined,
    audience: 'https://mcp.example/mcp',
    people,
    clock: () => new Date(5_000),
  });

  it('accepts only tokens for this audience, unexpired, with live rights', async () => {
    const ok = await authenticate({ token: 'good' });
    expect(ok.ok && [...ok.connection.rights]).toEqual(['notes.read']);
    for (const token of ['other-aud', 'old', 'forged'])
      expect(await authenticate({ token })).toMatchObject({ ok: false, status: 401 });
  });

  it('requires verify and audience', () => {
    expect(() => oauthAuthenticator({ verify: undefined as never, audience: 'a', people })).toThrow(/verify/);
  });
});

describe('refuseMcpTokens (I5)', () => {
  const isMcp = (v: string | null | undefined) =>
    typeof v === 'string' && v.replace(/^Bearer\s+/i, '').startsWith('ghmcp_');
  const refusal = refuseMcpTokens(isMcp);

  it('answers 401 on API routes to an MCP token in Authorization or a cookie, and passes API tokens', async () => {
    expect(
      refusal.check(new Request('http://x/api', { headers: { authorization: 'Bearer ghmcp_abc' } }))?.status,
    ).toBe(401);
    expect(
      refusal.check(new Request('http://x/api', { headers: { cookie: 'a=1; sid=ghmcp_abc' } }))?.status,
    ).toBe(401);
    expect(
      refusal.check(new Request('http://x/api', { headers: { authorization: 'Bearer api_123' } })),
    ).toBeUndefined();
    const res = { writeHead: vi.fn(), end: vi.fn() };
    const next = vi.fn();
    refusal.middleware({ headers: { authorization: 'Bearer ghmcp_abc' } }, res, next);
    expect(res.writeHead).toHaveBeenCalledWith(401, expect.any(Object));
    expect(next).not.toHaveBeenCalled();
    refusal.middleware({ headers: { authorization: 'Bearer api_123' } }, res, next);
    expect(next).toHaveBeenCalledOnce();
  });
});

describe('cachedPeople', () => {
  it('serves a removed role for at most ttlMs (the documented weakening of I4)', async () => {
    const people = new People();
    people.set('t1', 'alice', { active: true, rights: ['notes.write'] });
    let now = 0;
    const cached = cachedPeople(people, { ttlMs: 1_000, clock: () => new Date(now) });
    expect([...(await cached.current('t1', 'alice'))!.rights]).toEqual(['notes.write']);
    people.set('t1', 'alice', { active: true, rights: [] });
    now = 999;
    expect([...(await cached.current('t1', 'alice'))!.rights]).toEqual(['notes.write']);
    now = 1_000;
    expect([...(await cached.current('t1', 'alice'))!.rights]).toEqual([]);
    expect(() => cachedPeople(people, { ttlMs: 0 })).toThrow(/ttlMs/);
  });
});

describe('planVisibility', () => {
  it('hides a tool the tenant’s plan does not include, naming the plans that do', async () => {
    const guard = planVisibility({
      planOf: async (t) => (t === 't1' ? 'free' : 'pro'),
      plans: { page_technician: ['pro', 'enterprise'] },
    });
    expect(guard).toMatchObject({ kind: 'visibility', name: 'plan' });
    const tool = {
      name: 'page_technician',
      title: undefined,
      effect: 'wake' as const,
      requires: [],
      inputSchema: { type: 'object' },
      guards: [],
      creates: undefined,
    };
    for (const purpose of ['list', 'call'] as const) {
      expect(await guard.tool!(tool, connection, purpose)).toMatchObject({
        ok: false,
        code: 'tool_hidden',
        message: expect.stringContaining('free'),
        fix: expect.stringContaining('"pro"'),
        details: { tool: 'page_technician' },
      });
      expect(await guard.tool!(tool, { ...connection, tenantId: 't2' }, purpose)).toEqual(ALLOW);
      expect(await guard.tool!({ ...tool, name: 'find_notes' }, connection, purpose)).toEqual(ALLOW);
    }
  });
});
