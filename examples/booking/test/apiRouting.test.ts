/**
 * The REST API's routing: 404 for an unknown path and 405 for a known path
 * asked with another method (HEAD and OPTIONS included), both before any
 * credential is looked at; path parameters percent-decoded once; body limits;
 * an unexpected failure a 500 naming no cause; one log line per request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededTemplate, type TestApp, testApp } from './fixtures/testApp.js';

let dir = '';
let template = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'booking-api-routing-'));
  template = await seededTemplate(dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Json = Record<string, unknown>;

interface Call {
  readonly token?: string;
  readonly body?: string;
}

/** Sends one raw request to the API and reads its status and JSON body. */
function caller(base: URL) {
  return async (method: string, path: string, { token, body }: Call = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(`${base.href}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json, text };
  };
}

async function apiToken(t: TestApp): Promise<string> {
  const person = await t.app.people.byId('p_dan');
  if (!person) throw new Error('seed missing');
  return (await t.app.apiAccess.createToken(person, 'routing test')).token;
}

/** The API's log lines, parsed. */
const apiLogs = (t: TestApp) =>
  t.logLines.map((line) => JSON.parse(line) as Json).filter((line) => line.event === 'api');

describe('the REST API router', () => {
  it('answers 404 for an unknown path and 405 for a known path with another method, before authentication', async () => {
    await using t = await testApp({ template });
    const call = caller((await t.serve()).apiUrl);
    for (const path of ['/nope', '/bookings/', '/bookings/b_1/extra', '/book%69ngs', '']) {
      expect(await call('GET', path), path).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
    const wrong = await call('PUT', '/bookings');
    expect(wrong).toMatchObject({ status: 405, body: { error: 'method_not_allowed' } });
    expect(wrong.body.message).toBe('PUT is not allowed here.');
    expect((await call('PATCH', '/customers/cu_ada')).status).toBe(405);
    expect((await call('GET', '/session')).status).toBe(405);
    expect((await call('GET', '/admin/mcp-tokens/x/revoke')).status).toBe(405);
    expect(await t.count('gatehouse_audit')).toBe(0);
    const logged = apiLogs(t).map((line) => `${line.method} ${line.path} ${line.status}`);
    expect(logged.slice(0, 6)).toEqual([
      'GET /api/nope 404',
      'GET /api/bookings/ 404',
      'GET /api/bookings/b_1/extra 404',
      'GET /api/book%69ngs 404',
      'GET /api 404',
      'PUT /api/bookings 405',
    ]);
  });

  it('answers HEAD and OPTIONS with 405 on a known path and 404 elsewhere, running no route', async () => {
    await using t = await testApp({ template });
    const call = caller((await t.serve()).apiUrl);
    const token = await apiToken(t);
    expect((await call('HEAD', '/bookings', { token })).status).toBe(405);
    expect((await call('HEAD', '/session', { token })).status).toBe(405);
    expect((await call('HEAD', '/nope', { token })).status).toBe(404);
    expect(await call('OPTIONS', '/bookings', { token })).toMatchObject({
      status: 405,
      body: { error: 'method_not_allowed', message: 'OPTIONS is not allowed here.' },
    });
    expect((await call('OPTIONS', '/nope', { token })).status).toBe(404);
    const logged = apiLogs(t).map((line) => `${line.method} ${line.path} ${line.status}`);
    expect(logged).toEqual([
      'HEAD /api/bookings 405',
      'HEAD /api/session 405',
      'HEAD /api/nope 404',
      'OPTIONS /api/bookings 405',
      'OPTIONS /api/nope 404',
    ]);
  });

  it('decodes a percent-encoded path parameter once, keeps an encoded slash inside one segment, and takes a malformed one as it is', async () => {
    await using t = await testApp({ template });
    const call = caller((await t.serve()).apiUrl);
    const token = await apiToken(t);
    expect(await call('GET', '/customers/cu%5Fada', { token })).toMatchObject({
      status: 200,
      body: { id: 'cu_ada' },
    });
    const [first] = await t.rows<{ id: string }>('SELECT id FROM bookings ORDER BY id LIMIT 1');
    const id = first?.id ?? '';
    expect(await call('GET', `/bookings/${encodeURIComponent(id)}`, { token })).toMatchObject({
      status: 200,
      body: { id },
    });
    expect(await call('GET', `/bookings/${id}%2Fx`, { token })).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
    expect(await call('GET', '/customers/cu_ada%E0%A4%A', { token })).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
  });

  it('refuses a body over 64 KiB with 413 and a malformed one with 400, writing nothing', async () => {
    await using t = await testApp({ template });
    const call = caller((await t.serve()).apiUrl);
    const token = await apiToken(t);
    const before = await t.count('bookings');
    const huge = JSON.stringify({ note: 'x'.repeat(70 * 1024) });
    expect(await call('POST', '/bookings', { token, body: huge })).toMatchObject({
      status: 413,
      body: { error: 'body_too_large' },
    });
    expect(await call('POST', '/bookings', { token, body: '{"customer_id":' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_json' },
    });
    expect(await t.count('bookings')).toBe(before);
    expect(await t.count('gatehouse_audit')).toBe(0);
  });

  it('answers an unexpected failure with a 500 naming no cause, logged by type only', async () => {
    await using t = await testApp({ template });
    const call = caller((await t.serve()).apiUrl);
    const secret = 'postgres://admin:hunter2@db.internal/booking';
    t.app.apiAccess.byToken = async () => {
      throw new TypeError(`lost ${secret}`);
    };
    const failed = await call('GET', '/bookings', { token: 'bkapi_anything' });
    expect(failed).toMatchObject({
      status: 500,
      body: { error: 'internal_error', message: 'The server failed unexpectedly.' },
    });
    expect(failed.text).not.toContain('hunter2');
    expect(t.logLines.join('\n')).not.toContain('hunter2');
    expect(apiLogs(t)).toEqual([
      expect.objectContaining({ error_type: 'TypeError', msg: 'api failed' }),
      expect.objectContaining({ method: 'GET', path: '/api/bookings', status: 500 }),
    ]);
  });

  it('logs one line per request with method, path and status, never a body', async () => {
    await using t = await testApp({ template });
    const call = caller((await t.serve()).apiUrl);
    const body = JSON.stringify({ email: 'vera@example.test', password: 'tangerine-password-77' });
    expect((await call('POST', '/session', { body })).status).toBe(401);
    expect((await call('GET', '/customers?query=grace', { token: await apiToken(t) })).status).toBe(200);
    const mcp = await t.mint();
    expect((await call('GET', '/customers', { token: mcp })).status).toBe(401);
    expect(apiLogs(t)).toEqual([
      expect.objectContaining({ method: 'POST', path: '/api/session', status: 401 }),
      expect.objectContaining({ method: 'GET', path: '/api/customers', status: 200 }),
      expect.objectContaining({ method: 'GET', status: 401, refused: 'mcp_token' }),
    ]);
    expect(apiLogs(t)[2]).not.toHaveProperty('path');
    const all = t.logLines.join('\n');
    expect(all).not.toContain('tangerine-password-77');
    expect(all).not.toContain('grace');
    expect(all).not.toContain(mcp);
  });
});
