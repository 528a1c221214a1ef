/**
 * The authorization code flow end to end over HTTP, PKCE done by hand: a
 * client registers (dynamic registration enabled here), the person signs in
 * on the product's page and consents, the code becomes tokens, and the MCP
 * endpoint serves the access token with the consented rights (I3, I4, I21).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeQuery,
  connect,
  consent,
  pkce,
  reachConsent,
  redeemCode,
  registerClient,
  sceneOf,
  tokenRequest,
} from './fixtures/oauthFlow.js';
import { postgresAvailable } from './fixtures/postgres.js';
import { rawClient } from './fixtures/raw.js';
import { berlin, seededTemplate, testApp } from './fixtures/testApp.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-flow-')));
});

const toolNames = (reply: { result?: unknown }) =>
  ((reply.result as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((t) => t.name).sort();

describe('the authorization code flow with PKCE', () => {
  it('signs in, consents, exchanges the code with iss and state, and lists tools at MCP', async () => {
    await using t = await testApp({ template, oauth: { dynamicRegistration: true } });
    const scene = await sceneOf(t);
    const flow = await connect(scene, ['bookings.read']);
    expect(flow.redirect.origin + flow.redirect.pathname).toBe('http://127.0.0.1/callback');
    expect(flow.redirect.searchParams.get('state')).toBe('st4te');
    expect(flow.redirect.searchParams.get('iss')).toBe(scene.origin);
    const [credential] = await t.rows<{
      id: string;
      rights: string;
      creator_id: string;
      client_label: string;
    }>(
      "SELECT id, rights, creator_id, client_label FROM gatehouse_credentials WHERE client_label LIKE 'OAuth:%'",
    );
    expect(credential).toMatchObject({ creator_id: 'p_olivia', client_label: 'OAuth: Test Desktop' });
    expect(await t.count('gatehouse_audit', "action = 'token.create' AND channel = 'oauth'")).toBe(1);
    expect(await t.count('gatehouse_oauth_records', "model = 'Grant' AND id = ?", credential?.id)).toBe(1);
    const reply = await rawClient(scene.mcpUrl, flow.accessToken).listTools();
    expect(reply.status).toBe(200);
    expect(toolNames(reply)).toContain('find_bookings');
    // create_booking is within Olivia's rights but outside the token's scopes: listed, and refused for scope (I7)
    const before = await t.count('bookings');
    const refused = await rawClient(scene.mcpUrl, flow.accessToken).callTool('create_booking', {
      customer_id: 'cu_alan',
      starts_at: berlin(15, '08:00'),
      duration_minutes: 30,
      price: { minor_units: 4500, currency: 'EUR' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toContain('insufficient_scope');
    expect(await t.count('bookings')).toBe(before);
  });
});

describe('an authorization request without a scope', () => {
  it('asks the person for the starting scopes, and the token carries them', async () => {
    await using t = await testApp({ template, oauth: { dynamicRegistration: true } });
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const { verifier, challenge } = pkce();
    const path = await reachConsent(scene, authorizeQuery(scene, clientId, challenge, { scope: undefined }));
    const page = await scene.browser.get(path);
    expect(page.text).toContain('value="bookings.read" checked');
    expect(page.text).toContain('value="customers.read" checked');
    expect(page.text).not.toContain('value="bookings.write"');
    const back = await consent(scene, path, {
      decision: 'grant',
      rights: ['bookings.read', 'customers.read'],
    });
    const tokens = await redeemCode(scene.origin, scene.mcpUrl, { clientId: clientId, verifier }, back);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(String(tokens.body.scope).split(' ').sort()).toEqual(['bookings.read', 'customers.read']);
    expect((await rawClient(scene.mcpUrl, String(tokens.body.access_token)).listTools()).status).toBe(200);
  });
});

const pgAvailable = await postgresAvailable();

describe.skipIf(!pgAvailable)('the authorization code flow on PostgreSQL', () => {
  it('keeps grants, codes and rotating refresh tokens in the database, and MCP serves the token', async () => {
    await using t = await testApp({ engine: 'postgres', oauth: { dynamicRegistration: true } });
    const scene = await sceneOf(t);
    const flow = await connect(scene, ['bookings.read', 'customers.read']);
    expect((await rawClient(scene.mcpUrl, flow.accessToken).listTools()).status).toBe(200);
    expect(await t.count('gatehouse_oauth_records', "model = 'RefreshToken'")).toBe(1);
    const rotated = await tokenRequest(scene.origin, {
      grant_type: 'refresh_token',
      refresh_token: flow.refreshToken,
      client_id: flow.clientId,
    });
    expect(rotated.status).toBe(200);
    expect(
      await t.count('gatehouse_oauth_records', "model = 'RefreshToken' AND consumed_at IS NOT NULL"),
    ).toBe(1);
    expect((await rawClient(scene.mcpUrl, String(rotated.body.access_token)).listTools()).status).toBe(200);
    expect(await t.count('gatehouse_oauth_keys')).toBe(2);
  });
});
