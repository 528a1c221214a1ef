/**
 * Dynamic client registration (RFC 7591, enabled here; off by default): the
 * `scope` a client registers does not cap its later authorization requests,
 * so a client can step up to a right after a 403 `insufficient_scope`
 * without registering again; the person's consent decides. Malformed
 * registrations are refused and store nothing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeQuery, pkce, REDIRECT_URI, reachConsent, sceneOf } from './fixtures/oauthFlow.js';
import { seededTemplate, testApp } from './fixtures/testApp.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-registration-')));
});

const register = (origin: string, body: string, type = 'application/json') =>
  fetch(`${origin}/oauth/register`, { method: 'POST', headers: { 'content-type': type }, body });

const CLIENT = {
  client_name: 'Narrow Desktop',
  application_type: 'native',
  redirect_uris: [REDIRECT_URI],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  scope: 'bookings.read customers.read',
};

describe('dynamic registration', () => {
  it('registers no scope limit: a later request for a right beyond the registered scope reaches consent', async () => {
    await using t = await testApp({ template, oauth: { dynamicRegistration: true } });
    const scene = await sceneOf(t);
    const response = await register(scene.origin, JSON.stringify(CLIENT));
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body).not.toHaveProperty('scope');
    const [stored] = await t.rows<{ payload: string }>(
      "SELECT payload FROM gatehouse_oauth_records WHERE model = 'Client' AND id = ?",
      body.client_id,
    );
    expect(JSON.parse(stored?.payload ?? '{}')).not.toHaveProperty('scope');
    expect(JSON.parse(stored?.payload ?? '{}')).toMatchObject({ client_name: 'Narrow Desktop' });
    const query = authorizeQuery(scene, String(body.client_id), pkce().challenge, {
      scope: 'bookings.read customers.read bookings.write',
    });
    const path = await reachConsent(scene, query);
    expect((await scene.browser.get(path)).text).toContain('value="bookings.write" checked');
  });

  it('drops the scope of a registration sent in chunks (no content-length) too', async () => {
    await using t = await testApp({ template, oauth: { dynamicRegistration: true } });
    const scene = await sceneOf(t);
    const bytes = new TextEncoder().encode(JSON.stringify(CLIENT));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 20));
        controller.enqueue(bytes.slice(20));
        controller.close();
      },
    });
    const response = await fetch(`${scene.origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    const registered = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(registered)).toBe(201);
    expect(registered).not.toHaveProperty('scope');
    expect(
      await t.count('gatehouse_oauth_records', "model = 'Client' AND payload NOT LIKE '%\"scope\"%'"),
    ).toBe(1);
  });

  it('refuses a body that is not a JSON object, storing nothing', async () => {
    await using t = await testApp({ template, oauth: { dynamicRegistration: true } });
    const scene = await sceneOf(t);
    for (const [body, type] of [
      ['{"client_name": ', 'application/json'],
      ['[1, 2]', 'application/json'],
      ['client_name=x', 'application/x-www-form-urlencoded'],
    ] as const) {
      const response = await register(scene.origin, body, type);
      expect(response.status, body).toBe(400);
    }
    expect(await t.count('gatehouse_oauth_records', "model = 'Client'")).toBe(0);
  });

  it('is off by default: 404, nothing stored', async () => {
    await using t = await testApp({ template });
    const scene = await sceneOf(t);
    expect((await register(scene.origin, JSON.stringify(CLIENT))).status).toBe(404);
    expect(await t.count('gatehouse_oauth_records', "model = 'Client'")).toBe(0);
  });
});
