import { RawHttpClient } from '@gatehousejs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startDesk } from './desk.js';

type Desk = Awaited<ReturnType<typeof startDesk>>;
let desk: Desk;
afterEach(async () => desk?.served.close());

const client = (token: string | undefined, headers: Record<string, string> = {}) =>
  new RawHttpClient({
    url: desk.served.url,
    era: '2026-07-28',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
const mint = (overrides: Partial<Parameters<Desk['credentials']['mint']>[0]> = {}) =>
  desk.credentials.mint({
    tenantIds: ['t1'],
    creatorId: 'alice',
    rights: ['notes.read', 'notes.write'],
    clientLabel: 'test',
    ...overrides,
  });
const errorOf = (reply: { result?: unknown }) =>
  (
    reply.result as {
      structuredContent: { error: { code: string; details: Record<string, unknown>; message: string } };
    }
  ).structuredContent.error;

describe('createCredentials (I5)', () => {
  it('answers 401 to every wrong pairing and runs nothing', async () => {
    desk = await startDesk();
    const { token } = await mint();
    const expired = await mint({ expiresAt: Date.now() + 50 });
    const revoked = await mint();
    await desk.credentials.revoke(revoked.credential.id, { actorId: 'alice' });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const attempts: [string, RawHttpClient][] = [
      ['missing', client(undefined)],
      ['malformed', client(undefined, { authorization: 'Bearer' })],
      ['unknown', client(`ghmcp_${'A'.repeat(43)}`)],
      ['expired', client(expired.token)],
      ['revoked', client(revoked.token)],
      ['product API token', client('api_live_8f7d6e5c4b3a')],
      ['session cookie only', client(undefined, { cookie: `session=${token}` })],
      ['token with one character changed', client(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)],
    ];
    for (const [label, c] of attempts) {
      const reply = await c.callTool('update_note', { id: 'n1', text: 'pwned' });
      expect(reply.status, label).toBe(401);
      expect(reply.headers['www-authenticate'], label).toMatch(/^Bearer /);
    }
    expect(desk.runs).toEqual([]);
    expect(desk.rows[0]!.text).toBe('tenant one');
    expect((await client(token).callTool('update_note', { id: 'n1', text: 'ok' })).status).toBe(200);
  });

  it('answers 403 to a foreign Origin before looking at the credential', async () => {
    desk = await startDesk();
    const { token } = await mint();
    const reply = await client(token, { origin: 'https://evil.example' }).callTool('find_notes', {});
    expect(reply.status).toBe(403);
    expect(desk.runs).toEqual([]);
  });

  it('stores only the hash, shows the token once, and audits creation and revocation', async () => {
    desk = await startDesk();
    const { token, credential } = await mint();
    expect(token).toMatch(/^ghmcp_[A-Za-z0-9_-]{43}$/);
    const stored = await desk.credentialStore.findById(credential.id);
    expect(JSON.stringify(stored)).not.toContain(token.slice(6));
    expect(await desk.credentials.revoke(credential.id, { actorId: 'alice', channel: 'cli' })).toBe(true);
    expect(await desk.credentials.revoke(credential.id, { actorId: 'alice', channel: 'cli' })).toBe(false);
    expect(desk.audit.rows.map((r) => [r.action, r.channel, r.objectIds[0]])).toEqual([
      ['token.create', 'admin', credential.id],
      ['token.revoke', 'cli', credential.id],
    ]);
    expect(JSON.stringify(desk.audit.rows)).not.toContain(token);
  });

  it('caps granted rights at the creator’s rights, naming the refused ones', async () => {
    desk = await startDesk();
    await expect(mint({ creatorId: 'bob' })).rejects.toMatchObject({
      code: 'missing_right',
      details: { refused_rights: ['notes.write'] },
    });
    await expect(mint({ creatorId: 'mallory' })).rejects.toMatchObject({ code: 'missing_right' });
    expect(desk.audit.rows).toEqual([]);
    expect((await mint({ creatorId: 'bob', rights: ['notes.read'] })).credential.rights).toEqual([
      'notes.read',
    ]);
  });

  it('flags MCP tokens for the product API’s refusal helper', async () => {
    desk = await startDesk();
    const { token } = await mint();
    expect(desk.credentials.isMcpToken(`Bearer ${token}`)).toBe(true);
    expect(desk.credentials.isMcpToken('Bearer api_live_123')).toBe(false);
  });
});

describe('tenant binding (I3)', () => {
  it('resolves another tenant’s id to not_found and leaves the row unchanged', async () => {
    desk = await startDesk();
    const { token } = await mint();
    const reply = await client(token).callTool('update_note', { id: 'n2', text: 'cross-tenant' });
    expect(errorOf(reply).code).toBe('not_found');
    expect(desk.rows.find((n) => n.id === 'n2')!.text).toBe('tenant two');
    expect(
      errorOf(await client(token).callTool('update_note', { id: 'n1', text: 'x', tenant_id: 't2' })).code,
    ).toBe('unknown_arguments');
  });

  it('takes a multi-tenant credential’s tenant from the transport and checks it against the credential', async () => {
    desk = await startDesk();
    const { token } = await mint({ tenantIds: ['t1', 't2'] });
    expect((await client(token).callTool('find_notes', {})).status).toBe(403);
    expect((await client(token, { 'x-tenant': 't3' }).callTool('find_notes', {})).status).toBe(403);
    const t2 = await client(token, { 'x-tenant': 't2' }).callTool('find_notes', {});
    expect((t2.result as { structuredContent: unknown }).structuredContent).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n2', text: 'tenant two' }] },
    });
    const single = await mint();
    expect((await client(single.token, { 'x-tenant': 't2' }).callTool('find_notes', {})).status).toBe(403);
  });
});

describe('live rights (I4)', () => {
  it('refuses a write on the very next call after the creator’s role is removed, and lists it no more', async () => {
    desk = await startDesk();
    const { token } = await mint();
    expect((await client(token).callTool('update_note', { id: 'n1', text: 'one' })).status).toBe(200);
    desk.people.set('t1', 'alice', { active: true, rights: ['notes.read'] });
    const refused = await client(token).callTool('update_note', { id: 'n1', text: 'two' });
    expect(errorOf(refused)).toMatchObject({
      code: 'missing_right',
      details: { missing_rights: ['notes.write'] },
    });
    expect(desk.rows[0]!.text).toBe('one');
    const listed = (await client(token).listTools()).result as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(['find_notes', 'get_note', 'list_recent_changes']);
  });

  it('ends the connection with 401 when the creator is deactivated or removed', async () => {
    desk = await startDesk();
    const { token } = await mint();
    desk.people.set('t1', 'alice', { active: false, rights: ['notes.read', 'notes.write'] });
    expect((await client(token).callTool('find_notes', {})).status).toBe(401);
    desk.people.standings.delete('t1/alice');
    expect((await client(token).listTools()).status).toBe(401);
    expect(desk.runs).toEqual([]);
  });
});

describe('visibility (I7)', () => {
  it('hides tools outside the connection’s toolset and answers a call with the reason, not running it', async () => {
    desk = await startDesk();
    const { token } = await mint({ toolset: 'compact' });
    const listed = (await client(token).listTools()).result as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(['find_notes', 'get_note']);
    const error = errorOf(await client(token).callTool('update_note', { id: 'n1', text: 'x' }));
    expect(error.code).toBe('tool_hidden');
    expect(error.message).toContain('compact');
    expect(desk.runs).toEqual([]);
  });
});

describe('createServer({ rate }) (I7)', () => {
  it('refuses with retry_after_seconds once a class bucket is empty, without running, other classes unaffected', async () => {
    desk = await startDesk({ readRate: 2 });
    const { token } = await mint();
    const c = client(token);
    await c.callTool('find_notes', {});
    await c.callTool('find_notes', {});
    const error = errorOf(await c.callTool('get_note', { id: 'n1' }));
    expect(error.code).toBe('rate_limited');
    expect(error.details.retry_after_seconds).toBeGreaterThan(0);
    expect(desk.runs).toEqual(['find_notes', 'find_notes']);
    expect((await c.callTool('update_note', { id: 'n1', text: 'write bucket' })).status).toBe(200);
    expect(desk.runs.at(-1)).toBe('update_note');
  });
});

describe('createSwitches (I6)', () => {
  it('answers 503 with Retry-After while the global switch is on, runs nothing, and works again when off', async () => {
    desk = await startDesk();
    const { token } = await mint();
    await desk.switches.setGlobal(true, { actorId: 'ops', channel: 'cli' });
    const reply = await client(token).callTool('update_note', { id: 'n1', text: 'during outage' });
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('42');
    expect(desk.rows[0]!.text).toBe('tenant one');
    expect(desk.runs).toEqual([]);
    await desk.switches.setGlobal(false, { actorId: 'ops', channel: 'admin' });
    expect((await client(token).callTool('update_note', { id: 'n1', text: 'after' })).status).toBe(200);
    expect(
      desk.audit.rows.filter((r) => r.action === 'switch.set').map((r) => [r.channel, r.actorId, r.note]),
    ).toEqual([
      ['cli', 'ops', 'before: default; after: true'],
      ['admin', 'ops', 'before: true; after: false'],
    ]);
  });

  // Before a5d4439 the tenant switch was a guard in the call chain only:
  // tools/list did not ask it, so a switched-off tenant still listed every tool
  // and learned of the switch only by calling one. Listing and calling now share
  // one visibility decision.
  it('lists no tools to a switched-off tenant and refuses its calls with tenant_disabled; the other tenant is unaffected', async () => {
    desk = await startDesk();
    const t1 = await mint();
    const t2 = await mint({ tenantIds: ['t2'] });
    const names = async (token: string) =>
      ((await client(token).listTools()).result as { tools: { name: string }[] }).tools.map((t) => t.name);
    const all = ['find_notes', 'get_note', 'update_note', 'list_recent_changes'];
    expect(await names(t1.token)).toEqual(all);
    await desk.switches.setTenantAccess('t1', false, { actorId: 'alice', channel: 'admin' });
    expect(await names(t1.token)).toEqual([]);
    for (const [tool, args] of [
      ['find_notes', {}],
      ['update_note', { id: 'n1', text: 'switched off' }],
      ['list_recent_changes', {}],
    ] as const) {
      const error = errorOf(await client(t1.token).callTool(tool, args));
      expect(error.code, tool).toBe('tenant_disabled');
    }
    expect(desk.runs).toEqual([]);
    expect(desk.rows[0]!.text).toBe('tenant one');
    expect(await names(t2.token)).toEqual(all);
    expect((await client(t2.token).callTool('update_note', { id: 'n2', text: 'still on' })).status).toBe(200);
    expect(desk.rows.map((n) => n.text)).toEqual(['tenant one', 'still on']);
    await desk.switches.setTenantAccess('t1', true, { actorId: 'alice', channel: 'admin' });
    expect(await names(t1.token)).toEqual(all);
  });

  it('turns agent access off for one tenant only', async () => {
    desk = await startDesk();
    const t1 = await mint();
    const t2 = await mint({ tenantIds: ['t2'] });
    await desk.switches.setTenantAccess('t1', false, { actorId: 'alice', channel: 'admin' });
    expect(errorOf(await client(t1.token).callTool('update_note', { id: 'n1', text: 'x' })).code).toBe(
      'tenant_disabled',
    );
    expect((await client(t2.token).callTool('update_note', { id: 'n2', text: 'y' })).status).toBe(200);
    expect(desk.rows.map((n) => n.text)).toEqual(['tenant one', 'y']);
    expect(desk.audit.rows.filter((r) => r.action === 'switch.set').at(-1)).toMatchObject({
      action: 'switch.set',
      tenantId: 't1',
      note: 'before: default; after: false',
    });
  });
});
