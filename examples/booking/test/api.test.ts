/**
 * The product's REST API: the first adapter on the services. Its own API
 * tokens and session cookie work; MCP tokens never do (I5); every input it
 * refuses, the MCP tool refuses too (I1); admin changes are audited (I6).
 */
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../src/services/apiAccess.js';
import { codeOf, rawClient, structured } from './fixtures/raw.js';
import { berlin, type TestApp, testApp } from './fixtures/testApp.js';

type Json = Record<string, unknown>;

/** Calls the API with an API token or a session cookie. */
function api(base: URL, auth: { token?: string; cookie?: string; origin?: string } = {}) {
  return async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth.token) headers.authorization = `Bearer ${auth.token}`;
    if (auth.cookie) headers.cookie = auth.cookie;
    if (auth.origin) headers.origin = auth.origin;
    const response = await fetch(`${base.href}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : {}) as Json,
      headers: response.headers,
    };
  };
}

async function apiToken(t: TestApp, personId = 'p_dan'): Promise<string> {
  const person = await t.app.people.byId(personId);
  if (!person) throw new Error('seed missing');
  return (await t.app.apiAccess.createToken(person, 'test script')).token;
}

const sessionCookie = async (t: TestApp, personId: string) =>
  `${SESSION_COOKIE}=${(await t.app.apiAccess.openSession(personId)).token}`;

const newBooking = (days = 30) => ({
  customer_id: 'cu_ada',
  starts_at: berlin(days, '11:00'),
  duration_minutes: 60,
  price: { amount: '80.00', currency: 'EUR' },
});

describe('the REST API', () => {
  it('serves an API token and refuses an MCP token with 401, in Authorization or in a cookie', async () => {
    await using t = await testApp();
    const { apiUrl } = await t.serve();
    const ok = await api(apiUrl, { token: await apiToken(t) })('GET', '/bookings');
    expect(ok.status).toBe(200);
    expect((ok.body.bookings as Json[]).length).toBe(3);
    const mcp = await t.mint();
    const refused = await api(apiUrl, { token: mcp })('GET', '/bookings');
    expect(refused).toMatchObject({ status: 401, body: { error: 'mcp_token_not_accepted' } });
    expect((await api(apiUrl, { cookie: `${SESSION_COOKIE}=${mcp}` })('GET', '/bookings')).status).toBe(401);
    expect((await api(apiUrl)('GET', '/bookings')).status).toBe(401);
  });

  it('signs in with a password, acts with the session cookie, and signs out', async () => {
    await using t = await testApp();
    const { apiUrl } = await t.serve();
    const vera = await t.app.people.byId('p_vera');
    if (!vera) throw new Error('seed missing');
    const password = await t.app.people.resetPassword(vera, { actorId: 'ops', channel: 'cli' });
    expect((await api(apiUrl)('POST', '/session', { email: vera.email, password: 'wrong' })).status).toBe(
      401,
    );
    const login = await api(apiUrl)('POST', '/session', { email: vera.email, password });
    expect(login.status).toBe(204);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(login.headers.get('set-cookie')).toContain('HttpOnly');
    const asVera = api(apiUrl, { cookie });
    expect((await asVera('GET', '/customers?query=grace')).body).toMatchObject({
      customers: [{ id: 'cu_grace' }],
    });
    expect((await asVera('POST', '/bookings', newBooking())).status).toBe(403);
    expect((await asVera('DELETE', '/session')).status).toBe(204);
    expect((await asVera('GET', '/customers')).status).toBe(401);
  });

  it('creates and updates bookings through the services, audited with channel api; a stale version is 409', async () => {
    await using t = await testApp();
    const call = api((await t.serve()).apiUrl, { token: await apiToken(t) });
    const created = await call('POST', '/bookings', newBooking());
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(
      await t.count(
        'gatehouse_audit',
        "channel = 'api' AND action = 'booking.create' AND actor_id = 'p_dan'",
      ),
    ).toBe(1);
    const updated = await call('PATCH', `/bookings/${id}`, {
      version: created.body.version,
      duration_minutes: 90,
    });
    expect(updated.status).toBe(200);
    const stale = await call('PATCH', `/bookings/${id}`, {
      version: created.body.version,
      duration_minutes: 30,
    });
    expect(stale).toMatchObject({ status: 409, body: { error: 'conflict' } });
    expect(await t.count('bookings', 'id = ? AND duration_minutes = 90', id)).toBe(1);
  });

  it('refuses through create_booking every input the API refuses (I1)', async () => {
    await using t = await testApp();
    const serving = await t.serve();
    const call = api(serving.apiUrl, { token: await apiToken(t) });
    const mcp = rawClient(serving.mcpUrl, await t.mint({ personId: 'p_dan' }));
    const bad: Json[] = [
      { ...newBooking(), starts_at: berlin(-2) },
      { ...newBooking(), duration_minutes: 5 },
      { ...newBooking(), price: { amount: '80.00', currency: 'USD' } },
      { ...newBooking(), customer_id: 'cu_linus' },
      { ...newBooking(), technician_id: 'te_sam' },
      { ...newBooking(), discount: 10 },
    ];
    const before = await t.count('bookings');
    for (const input of bad) {
      const viaApi = await call('POST', '/bookings', input);
      expect(viaApi.status, JSON.stringify(input)).toBeGreaterThanOrEqual(400);
      expect(viaApi.status).toBeLessThan(500);
      expect(codeOf(await mcp.callTool('create_booking', input)), JSON.stringify(input)).toBeDefined();
    }
    expect(await t.count('bookings')).toBe(before);
  });

  it('lets the owner flip the switches and revoke MCP tokens from a session, audited with channel admin', async () => {
    await using t = await testApp();
    const serving = await t.serve();
    const admin = api(serving.apiUrl, { cookie: await sessionCookie(t, 'p_olivia') });
    const token = await t.mint();
    const mcp = rawClient(serving.mcpUrl, token);
    expect((await admin('PUT', '/admin/switches/global', { on: true })).status).toBe(200);
    expect((await mcp.callTool('find_bookings', {})).status).toBe(503);
    await admin('PUT', '/admin/switches/global', { on: false });
    await admin('PUT', '/admin/switches/workspace', { enabled: false });
    expect(codeOf(await mcp.callTool('find_bookings', {}))).toBe('tenant_disabled');
    await admin('PUT', '/admin/switches/workspace', { enabled: true });
    expect(structured(await mcp.callTool('find_bookings', {})).status).toBe('ok');
    const [{ id } = { id: '' }] = await t.rows<{ id: string }>('SELECT id FROM gatehouse_credentials');
    expect((await admin('POST', `/admin/mcp-tokens/${id}/revoke`)).body).toMatchObject({ revoked: true });
    expect((await mcp.callTool('find_bookings', {})).status).toBe(401);
    expect(await t.count('gatehouse_audit', "channel = 'admin'")).toBe(5);
  });

  it('keeps admin routes to signed-in owners, and the global switch to the operator', async () => {
    await using t = await testApp();
    const { apiUrl } = await t.serve();
    const id = (
      await t.app.credentials.mint({
        tenantIds: ['ws_acme'],
        creatorId: 'p_olivia',
        rights: ['bookings.read'],
        clientLabel: 'x',
      })
    ).credential.id;
    expect(
      (await api(apiUrl, { token: await apiToken(t, 'p_olivia') })('GET', '/admin/switches')).status,
    ).toBe(403);
    expect(
      (await api(apiUrl, { cookie: await sessionCookie(t, 'p_dan') })('GET', '/admin/switches')).status,
    ).toBe(403);
    const gina = api(apiUrl, { cookie: await sessionCookie(t, 'p_gina') });
    expect((await gina('PUT', '/admin/switches/global', { on: true })).status).toBe(403);
    expect((await gina('POST', `/admin/mcp-tokens/${id}/revoke`)).status).toBe(404);
    expect(await t.app.switches.isGlobalOn()).toBe(false);
    expect(await t.count('gatehouse_credentials', 'revoked_at IS NOT NULL')).toBe(0);
  });

  it('refuses a cross-site write that rides on the session cookie', async () => {
    await using t = await testApp();
    const { apiUrl } = await t.serve();
    const forged = api(apiUrl, { cookie: await sessionCookie(t, 'p_dan'), origin: 'https://evil.example' });
    const before = await t.count('bookings');
    expect((await forged('POST', '/bookings', newBooking())).status).toBe(403);
    expect(await t.count('bookings')).toBe(before);
  });
});
