/**
 * What the authorization server and the MCP endpoint refuse, one test per
 * refusal, each asserting its effect on stored rows: no PKCE, `plain`, an
 * unlisted redirect URI, another resource, a code used twice, a
 * rotated-away refresh token (the grant and its credential revoked), a
 * revoked credential, an expired token, another issuer's token, a consent
 * posted cross-site, and consenting to a right the person lacks.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeQuery,
  connect,
  locationOf,
  pkce,
  REDIRECT_URI,
  reachConsent,
  registerClient,
  sceneOf,
  tokenRequest,
} from './fixtures/oauthFlow.js';
import { rawClient } from './fixtures/raw.js';
import { seededTemplate, type TestApp, testApp } from './fixtures/testApp.js';
import { hiddenFieldsIn, PagesBrowser, passwordOf } from './pagesClient.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-refusals-')));
});

const oauthApp = () => testApp({ template, oauth: { dynamicRegistration: true } });
const oauthCredentials = (t: TestApp) => t.count('gatehouse_credentials', "client_label LIKE 'OAuth:%'");
const interactions = (t: TestApp) => t.count('gatehouse_oauth_records', "model = 'Interaction'");

describe('the authorization endpoint', () => {
  it('refuses a request without PKCE and one with the plain method, before any interaction', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const { challenge } = pkce();
    for (const overrides of [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge_method: 'plain' },
    ]) {
      const answer = await scene.browser.get(authorizeQuery(scene, clientId, challenge, overrides));
      expect(answer.status).toBe(303);
      const back = locationOf(scene, answer.headers);
      expect(back.origin + back.pathname).toBe(REDIRECT_URI);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('iss')).toBe(scene.origin);
    }
    expect(await interactions(t)).toBe(0);
  });

  it('refuses an unlisted redirect URI with an error page, never redirecting there', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const answer = await scene.browser.get(
      authorizeQuery(scene, clientId, pkce().challenge, { redirect_uri: 'http://127.0.0.1.evil.example/cb' }),
    );
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(answer.text).toContain('redirect_uri');
    expect(await interactions(t)).toBe(0);
  });

  it('refuses a resource other than the MCP endpoint (RFC 8707)', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const answer = await scene.browser.get(
      authorizeQuery(scene, clientId, pkce().challenge, { resource: 'https://other.example/mcp' }),
    );
    expect(answer.status).toBe(303);
    expect(locationOf(scene, answer.headers).searchParams.get('error')).toBe('invalid_target');
    expect(await interactions(t)).toBe(0);
  });

  it('refuses a client metadata document on a loopback address unless configured', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const answer = await scene.browser.get(
      authorizeQuery(scene, 'https://127.0.0.1:9/client.json', pkce().challenge),
    );
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('invalid_client');
    expect(await interactions(t)).toBe(0);
  });
});

describe('the token endpoint', () => {
  it('refuses a code used twice, and revokes what the first use issued', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await connect(scene);
    expect((await rawClient(scene.mcpUrl, flow.accessToken).listTools()).status).toBe(200);
    const again = await tokenRequest(scene.origin, {
      grant_type: 'authorization_code',
      code: flow.code,
      redirect_uri: REDIRECT_URI,
      client_id: flow.clientId,
      code_verifier: flow.verifier,
      resource: scene.mcpUrl.href,
    });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await rawClient(scene.mcpUrl, flow.accessToken).listTools()).status).toBe(401);
  });

  it('rotates refresh tokens; a rotated-away one is refused and revokes the grant and its credential', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await connect(scene);
    const refresh = (token: string) =>
      tokenRequest(scene.origin, {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: flow.clientId,
      });
    const rotated = await refresh(flow.refreshToken);
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(flow.refreshToken);
    const fresh = String(rotated.body.access_token);
    expect((await rawClient(scene.mcpUrl, fresh).listTools()).status).toBe(200);

    expect(await refresh(flow.refreshToken)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expect
      .poll(() => t.count('gatehouse_credentials', "client_label LIKE 'OAuth:%' AND revoked_at IS NOT NULL"))
      .toBe(1);
    expect(await t.count('gatehouse_audit', "action = 'token.revoke' AND channel = 'oauth'")).toBe(1);
    expect((await rawClient(scene.mcpUrl, fresh).listTools()).status).toBe(401);
    expect((await refresh(String(rotated.body.refresh_token))).status).toBe(400);
  });
});

describe('the revocation endpoint (RFC 7009)', () => {
  it('revoking the refresh token revokes the grant and its credential, audited', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await connect(scene);
    const response = await fetch(`${scene.origin}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: flow.refreshToken, client_id: flow.clientId }).toString(),
    });
    expect(response.status).toBe(200);
    await expect
      .poll(() => t.count('gatehouse_credentials', "client_label LIKE 'OAuth:%' AND revoked_at IS NOT NULL"))
      .toBe(1);
    expect(await t.count('gatehouse_audit', "action = 'token.revoke' AND channel = 'oauth'")).toBe(1);
    expect((await rawClient(scene.mcpUrl, flow.accessToken).listTools()).status).toBe(401);
  });
});

describe('the MCP endpoint with OAuth access tokens', () => {
  it('answers 401 once the credential is revoked on the tokens page, and refuses its refresh token', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await connect(scene);
    const [row] = await t.rows<{ id: string }>(
      "SELECT id FROM gatehouse_credentials WHERE client_label LIKE 'OAuth:%'",
    );
    const tokensPage = await scene.browser.get('/tokens');
    expect(tokensPage.text).toContain(`data-token-id="${row?.id}"`);
    expect((await scene.browser.post(`/tokens/${row?.id}/revoke`)).status).toBe(303);
    const refused = await rawClient(scene.mcpUrl, flow.accessToken).listTools();
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(await t.count('gatehouse_audit', "action = 'token.revoke' AND channel = 'admin'")).toBe(1);
    expect(await t.count('gatehouse_oauth_records', 'grant_id = ? OR id = ?', row?.id, row?.id)).toBe(0);
    const refresh = await tokenRequest(scene.origin, {
      grant_type: 'refresh_token',
      refresh_token: flow.refreshToken,
      client_id: flow.clientId,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('answers 401 to an expired access token and to one from another issuer', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await connect(scene);
    await using other = await oauthApp();
    const foreign = await connect(await sceneOf(other));
    expect((await rawClient(scene.mcpUrl, foreign.accessToken).listTools()).status).toBe(401);
    t.advance(11 * 60_000);
    expect((await rawClient(scene.mcpUrl, flow.accessToken).listTools()).status).toBe(401);
  });

  it('answers 401 on the next request once the person is deactivated (I4)', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await connect(scene);
    expect((await rawClient(scene.mcpUrl, flow.accessToken).listTools()).status).toBe(200);
    await t.exec("UPDATE people SET active = 0 WHERE id = 'p_olivia'");
    expect((await rawClient(scene.mcpUrl, flow.accessToken).listTools()).status).toBe(401);
  });

  it('refuses an MCP access token at the REST API (I5)', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await connect(scene);
    const api = await fetch(`${scene.origin}/api/bookings`, {
      headers: { authorization: `Bearer ${flow.accessToken}` },
    });
    expect(api.status).toBe(401);
  });
});

describe('the consent page', () => {
  it('refuses a consent posted cross-site (403), minting nothing', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const path = await reachConsent(scene, authorizeQuery(scene, clientId, pkce().challenge));
    const posted = await scene.browser.post(
      path,
      { decision: 'grant', rights: ['bookings.read'] },
      { origin: 'https://evil.example' },
    );
    expect(posted.status).toBe(403);
    const noCsrf = await scene.browser.post(
      path,
      { decision: 'grant', rights: ['bookings.read'] },
      { csrf: null },
    );
    expect(noCsrf.status).toBe(403);
    expect(await oauthCredentials(t)).toBe(0);
    expect(await t.count('gatehouse_audit', "action = 'token.create'")).toBe(0);
  });

  it('refuses the consent page in a browser that did not start the authorization, minting nothing', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const start = await scene.browser.get(authorizeQuery(scene, clientId, pkce().challenge));
    const path = locationOf(scene, start.headers).pathname;
    const victim = new PagesBrowser(scene.origin);
    const { email, password } = await passwordOf(t, 'p_olivia');
    await victim.signIn(email, password);
    expect((await victim.get(path)).status).toBe(403);
    await victim.get('/tokens');
    const posted = await victim.post(path, { decision: 'grant', rights: ['bookings.read'] });
    expect(posted.status).toBe(403);
    expect(await oauthCredentials(t)).toBe(0);
    expect(await t.count('gatehouse_oauth_records', "model = 'Grant'")).toBe(0);
  });

  it('shows a right the person lacks as not grantable and refuses it when posted anyway', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const query = authorizeQuery(scene, clientId, pkce().challenge, {
      scope: 'bookings.read bookings.write',
    });
    const path = await reachConsent(scene, query, 'p_vera');
    const page = await scene.browser.get(path);
    expect(page.text).toContain('data-not-held="bookings.write"');
    expect(page.text).not.toContain('value="bookings.write"');
    const posted = await scene.browser.post(path, {
      ...hiddenFieldsIn(page.text),
      decision: 'grant',
      rights: ['bookings.read', 'bookings.write'],
    });
    expect(posted.status).toBe(400);
    expect(posted.text).toContain('bookings.write');
    expect(await oauthCredentials(t)).toBe(0);
    expect(await t.count('gatehouse_oauth_records', "model = 'Grant'")).toBe(0);
  });

  it('denied: the client gets access_denied and nothing is minted', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const path = await reachConsent(scene, authorizeQuery(scene, clientId, pkce().challenge));
    const posted = await scene.browser.post(path, { decision: 'deny' });
    const resumed = await scene.browser.get(locationOf(scene, posted.headers).pathname);
    expect(locationOf(scene, resumed.headers).searchParams.get('error')).toBe('access_denied');
    expect(await oauthCredentials(t)).toBe(0);
  });
});
