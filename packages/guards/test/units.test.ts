import { type Connection, MemoryAuditStore, MemoryReplayStore, type ToolCall } from '@gatehousejs/core';
import { describe, expect, it, vi } from 'vitest';
import {
  cachedPeople,
  createSwitches,
  oauthAuthenticator,
  planVisibility,
  rateGuard,
  refuseMcpTokens,
  replayGuard,
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
const call = (effect: ToolCall['tool']['effect']): ToolCall => ({
  tool: { name: 'tool', effect },
  connection,
  input: {},
  arguments: {},
  guardArguments: {},
  note: () => {},
  requestId: 1,
  correlationId: 'corr',
  now: new Date(0),
  signal: new AbortController().signal,
});
const ran = () => Promise.resolve({ kind: 'result' as const, data: { ran: true } });
const broken = {
  take: () => Promise.reject(new Error('redis down')),
  get: () => Promise.reject(new Error('redis down')),
  set: () => Promise.reject(new Error('x')),
};

describe('rateGuard', () => {
  it('refuses bad limits and unknown effect classes at configuration time', () => {
    expect(() => rateGuard({ store: broken, fallback: { capacity: 0, refillPerSecond: 1 } })).toThrow(
      /capacity/,
    );
    expect(() =>
      rateGuard({ store: broken, limits: { email: { capacity: 1, refillPerSecond: 1 } } as never }),
    ).toThrow(/unknown effect/);
  });

  it('fails closed when its store fails', async () => {
    const handle = rateGuard({ store: broken }).handle!;
    expect(await handle(call('write'), ran)).toMatchObject({
      kind: 'refused',
      error: { code: 'store_unavailable' },
    });
  });
});

describe('createSwitches', () => {
  it('refuses a bad retry hint and fails closed when the tenant switch cannot be read', async () => {
    expect(() =>
      createSwitches({ store: broken, audit: new MemoryAuditStore(), retryAfterSeconds: 0 }),
    ).toThrow(/retryAfterSeconds/);
    const switches = createSwitches({ store: broken, audit: new MemoryAuditStore() });
    expect(await switches.guard.handle!(call('read'), ran)).toMatchObject({
      kind: 'refused',
      error: { code: 'store_unavailable' },
    });
    await expect(Promise.resolve(switches.guard.gate!({ transport: 'http' }))).rejects.toThrow('redis down');
  });

  it('uses the tenant default defined once', async () => {
    const { MemorySwitchStore } = await import('@gatehousejs/core');
    const off = createSwitches({
      store: new MemorySwitchStore(),
      audit: new MemoryAuditStore(),
      tenantDefault: false,
    });
    expect(await off.guard.handle!(call('read'), ran)).toMatchObject({ error: { code: 'tenant_disabled' } });
    await off.setTenantAccess('t1', true, { actorId: 'a', channel: 'admin' });
    expect(await off.guard.handle!(call('read'), ran)).toEqual({ kind: 'result', data: { ran: true } });
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
    clock: () => 5_000,
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
    const cached = cachedPeople(people, { ttlMs: 1_000, clock: () => now });
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
    const rule = planVisibility({
      planOf: async (t) => (t === 't1' ? 'free' : 'pro'),
      plans: { page_technician: ['pro', 'enterprise'] },
    });
    const tool = { name: 'page_technician', title: undefined, effect: 'wake' as const, requires: [] };
    expect(await rule(tool, connection)).toMatchObject({
      reason: expect.stringContaining('free'),
      fix: expect.stringContaining('"pro"'),
    });
    expect(await rule(tool, { ...connection, tenantId: 't2' })).toBeUndefined();
    expect(await rule({ ...tool, name: 'find_notes' }, connection)).toBeUndefined();
  });
});

describe('replayGuard', () => {
  it('replays a call that outlived its lease, even after the expired claim was swept', async () => {
    let now = 0;
    const store = new MemoryReplayStore();
    const handle = replayGuard({ store, leaseMs: 10, clock: () => now }).handle!;
    const write = { ...call('write'), input: { title: 'Boiler' } };
    let runs = 0;
    const slow = async () => {
      runs++;
      now = 1_000; // the call outlives its 10 ms lease; another key's claim sweeps the expired one
      await store.begin('another', 'x', 10, now);
      return { kind: 'result' as const, data: { id: 'n1' } };
    };
    expect(await handle(write, slow)).toEqual({ kind: 'result', data: { id: 'n1' } });
    const again = await handle(write, slow);
    expect([again, runs]).toEqual([{ kind: 'result', data: { id: 'n1' }, replayed: true }, 1]);
  });

  const counting = () => {
    let runs = 0;
    const run = async () => ({ kind: 'result' as const, data: { run: ++runs } });
    return { run, runs: () => runs };
  };

  it('fingerprints every argument sent: a guard-owned argument makes another call', async () => {
    const handle = replayGuard({ store: new MemoryReplayStore() }).handle!;
    const first = { ...call('write'), arguments: { customer: 'ada' } };
    const separate = { ...first, guardArguments: { separate: true, reason: 'second room' } };
    const { run, runs } = counting();
    await handle(first, run);
    const second = await handle(separate, run);
    expect([second, runs()]).toEqual([{ kind: 'result', data: { run: 2 } }, 2]);
    expect(await handle(separate, run)).toEqual({ kind: 'result', data: { run: 2 }, replayed: true });
  });

  it('keeps a result without an idempotency key for minutes, so a deliberate repeat runs again', async () => {
    let now = 0;
    const handle = replayGuard({ store: new MemoryReplayStore(), clock: () => now }).handle!;
    const write = { ...call('write'), arguments: { status: 'A' } };
    const { run, runs } = counting();
    await handle(write, run);
    now = 5 * 60_000 - 1;
    expect(await handle(write, run)).toMatchObject({ replayed: true });
    now = 5 * 60_000;
    expect(await handle(write, run)).toEqual({ kind: 'result', data: { run: 2 } });
    expect(runs()).toBe(2);
  });

  it('keeps a result with an idempotency key for 24 hours, and both windows are configurable', async () => {
    let now = 0;
    const store = new MemoryReplayStore();
    const handle = replayGuard({ store, clock: () => now }).handle!;
    const keyed = {
      ...call('write'),
      arguments: { status: 'A' },
      guardArguments: { idempotency_key: 'order-000123' },
    };
    const { run, runs } = counting();
    await handle(keyed, run);
    now = 24 * 3_600_000 - 1;
    expect(await handle(keyed, run)).toMatchObject({ replayed: true });
    now = 24 * 3_600_000;
    expect(await handle(keyed, run)).toEqual({ kind: 'result', data: { run: 2 } });
    expect(runs()).toBe(2);
    expect(() => replayGuard({ store, windowMs: 0 })).toThrow(/windowMs must be a positive number/);
    expect(() => replayGuard({ store, keyedWindowMs: -1 })).toThrow(
      /keyedWindowMs must be a positive number/,
    );
  });
});
