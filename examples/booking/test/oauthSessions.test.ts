/**
 * Whose code a client gets: the product's sign-in is the authorization
 * server's only session. A person who signed out is asked to sign in again,
 * the next person signed in in the same browser answers for themself, and
 * `prompt=login` and `max_age` ask for a new sign-in. A second consent of
 * the same client is a second grant beside the first. The consent page says
 * how the client is known, where the browser goes next and what each right
 * allows, with every displayed string cleaned; a sign-in it starts, by
 * password or one-time link, returns to it. The Inspector's route with a
 * pre-registered client and its callbacks is walked to the end.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliActor, clientsOf } from '../src/cli/commands.js';
import { BOOKING_SCOPES } from '../src/oauth.js';
import { createSignInLink } from '../src/pages/index.js';
import {
  authorizeQuery,
  consent,
  locationOf,
  type OAuthScene,
  pkce,
  reachConsent,
  redeemCode,
  registerClient,
  sceneOf,
  tokenRequest,
} from './fixtures/oauthFlow.js';
import { rawClient } from './fixtures/raw.js';
import { seededTemplate, type TestApp, testApp } from './fixtures/testApp.js';
import { passwordOf } from './pagesClient.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-sessions-')));
});

const oauthApp = () => testApp({ template, oauth: { dynamicRegistration: true } });

/** One authorization of `clientId` through consent to the tokens, in the scene's browser. */
async function authorize(scene: OAuthScene, clientId: string, personId = 'p_olivia') {
  const { verifier, challenge } = pkce();
  const path = await reachConsent(scene, authorizeQuery(scene, clientId, challenge), personId);
  const back = await consent(scene, path, { decision: 'grant', rights: ['bookings.read'] });
  const tokens = await redeemCode(scene.origin, scene.mcpUrl, { clientId, verifier }, back);
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return { access: String(tokens.body.access_token), refresh: String(tokens.body.refresh_token) };
}

/** Starts an authorization and follows it as far as it goes without a person: where the browser lands. */
async function askAgain(scene: OAuthScene, clientId: string, extra: Record<string, string> = {}) {
  const start = await scene.browser.get(authorizeQuery(scene, clientId, pkce().challenge, extra));
  expect(start.status, start.text).toBe(303);
  return locationOf(scene, start.headers);
}

/** Waits until the wall clock is in a later second than now. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_001 - (Date.now() % 1_000)));

const grantsOf = (t: TestApp) =>
  t.rows<{ id: string; creator_id: string; revoked_at: number | null }>(
    "SELECT id, creator_id, revoked_at FROM gatehouse_credentials WHERE client_label LIKE 'OAuth:%' ORDER BY created_at, id",
  );

describe('the product’s sign-in is the authorization server’s session', () => {
  it('after sign-out, a client asking again gets no code: the browser goes to consent, then to sign-in', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    await authorize(scene, clientId);
    expect(await scene.browser.post('/signout')).toMatchObject({ status: 303 });

    const landed = await askAgain(scene, clientId);
    expect(landed.searchParams.get('code')).toBeNull();
    expect(landed.pathname).toMatch(/^\/oauth\/consent\//);
    const consentPage = await scene.browser.get(landed.pathname);
    expect(consentPage.status).toBe(303);
    expect(consentPage.headers.get('location')).toBe(`/signin?return=${encodeURIComponent(landed.pathname)}`);
    // nothing but the first grant was ever made
    expect(await grantsOf(t)).toHaveLength(1);
    // and the browser keeps no cookie of the provider's own session
    expect([...scene.browser.jar.keys()].filter((name) => name.startsWith('_session'))).toEqual([]);
  });

  it('after another person signs in on the pages, the consent is theirs and the grant is theirs', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    await authorize(scene, clientId, 'p_olivia');
    const dan = await passwordOf(t, 'p_dan');
    await scene.browser.signIn(dan.email, dan.password);

    const landed = await askAgain(scene, clientId);
    expect(landed.searchParams.get('code')).toBeNull();
    const page = await scene.browser.get(landed.pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('asks to act for you, Dan');
    const back = await consent(scene, landed.pathname, { decision: 'grant', rights: ['bookings.read'] });
    expect(back.searchParams.get('code')).toBeTruthy();
    expect((await grantsOf(t)).map((g) => g.creator_id)).toEqual(['p_olivia', 'p_dan']);
  });

  it('honours prompt=login and max_age: a new sign-in first, then back to the same consent', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    await authorize(scene, clientId);

    const fresh = await askAgain(scene, clientId, { prompt: 'login consent' });
    const first = await scene.browser.get(fresh.pathname);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(`/signin?return=${encodeURIComponent(fresh.pathname)}`);
    const olivia = await passwordOf(t, 'p_olivia');
    // the provider keeps the request's time in whole seconds: a sign-in counts from the next one
    await nextSecond();
    await scene.browser.signIn(olivia.email, olivia.password, fresh.pathname);
    expect((await scene.browser.get(fresh.pathname)).status).toBe(200);

    // a sign-in two seconds old is too old for max_age=1, recent enough for max_age=600
    // (max_age is OpenID Connect's: it comes with the openid scope; the provider's clock is real time)
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const oidc = (maxAge: string) => ({ max_age: maxAge, scope: 'openid bookings.read' });
    const tooOld = await askAgain(scene, clientId, oidc('1'));
    const tooOldPage = await scene.browser.get(tooOld.pathname);
    expect(tooOldPage.status, tooOldPage.text).toBe(303);
    // a post cannot skip the new sign-in either
    const skipped = await scene.browser.post(tooOld.pathname, {
      decision: 'grant',
      workspace: 'ws_acme',
      rights: ['bookings.read'],
    });
    expect(skipped.status).toBe(303);
    expect(skipped.headers.get('location')).toContain('/signin?return=');
    const recent = await askAgain(scene, clientId, oidc('600'));
    expect((await scene.browser.get(recent.pathname)).status).toBe(200);
    expect(await grantsOf(t)).toHaveLength(1);
  });

  it('returns a sign-in started from the consent there, by password or by a one-time link', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const start = await scene.browser.get(authorizeQuery(scene, clientId, pkce().challenge));
    const consentPath = locationOf(scene, start.headers).pathname;
    const toSignIn = await scene.browser.get(consentPath);
    const signInPath = toSignIn.headers.get('location') ?? '';
    const signInPage = await scene.browser.get(signInPath);
    expect(signInPage.text).toContain('data-return-note');
    const link = new URL(await createSignInLink(t.app, 'p_olivia'));
    const landed = await scene.browser.get(link.pathname);
    expect(landed.status).toBe(303);
    expect(landed.headers.get('location')).toBe(consentPath);
    expect((await scene.browser.get(consentPath)).status).toBe(200);
    // the remembered return is used once: a later link lands on the approvals
    await scene.browser.post('/signout');
    const later = await scene.browser.get(new URL(await createSignInLink(t.app, 'p_olivia')).pathname);
    expect(later.headers.get('location')).toBe('/approvals');
  });
});

describe('a second consent of the same client', () => {
  it('is a second grant beside the first: both tokens and both refresh tokens work, both listed, each revocable alone', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin);
    const first = await authorize(scene, clientId);
    const second = await authorize(scene, clientId);

    expect((await rawClient(scene.mcpUrl, first.access).listTools()).status).toBe(200);
    expect((await rawClient(scene.mcpUrl, second.access).listTools()).status).toBe(200);
    const grants = await grantsOf(t);
    expect(grants).toHaveLength(2);
    expect(grants.every((g) => g.revoked_at === null)).toBe(true);
    const listed = await scene.browser.get('/tokens');
    for (const grant of grants) expect(listed.text).toContain(grant.id);

    const refreshed = await tokenRequest(scene.origin, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh,
      client_id: clientId,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);

    expect((await scene.browser.post(`/tokens/${grants[0]?.id}/revoke`)).status).toBe(303);
    expect((await rawClient(scene.mcpUrl, String(refreshed.body.access_token)).listTools()).status).toBe(401);
    expect((await rawClient(scene.mcpUrl, second.access).listTools()).status).toBe(200);
    const again = await tokenRequest(scene.origin, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh,
      client_id: clientId,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });
});

describe('what the consent page says', () => {
  it('cleans a lying name, says the client registered itself, and shows the redirect host, rights in words and the true duration', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const clientId = await registerClient(scene.origin, 'Claude Desktop \u202Elipa.exe\u200B');
    const path = await reachConsent(scene, authorizeQuery(scene, clientId, pkce().challenge));
    const page = await scene.browser.get(path);
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B]/u);
    expect(page.text).toContain('<strong data-client-name>Claude Desktop lipa.exe</strong>');
    expect(page.text).toContain('data-provenance="dynamic"');
    expect(page.text).toContain('the name is unverified');
    expect(page.text).toContain('<strong data-redirect-host>127.0.0.1</strong>');
    expect(page.text).toContain(BOOKING_SCOPES.words['bookings.read']);
    expect(page.text).toContain(BOOKING_SCOPES.words['customers.read']);
    expect(page.text).toContain('Tools it sees');
    expect(page.text).toContain('Compact: ');
    expect(page.text).toContain('It stays connected until');
    expect(page.text).not.toContain('within ten minutes');
  });

  it('says a pre-registered client is registered by the operator, and a metadata-document client names its host', async () => {
    await using t = await testApp({ template });
    const scene = await sceneOf(t);
    await clientsOf(t.app).save(
      { id: 'desk-app', name: 'Desk App', redirectUris: ['http://127.0.0.1/callback'] },
      cliActor(),
    );
    const path = await reachConsent(scene, authorizeQuery(scene, 'desk-app', pkce().challenge));
    const page = await scene.browser.get(path);
    expect(page.text).toContain('data-provenance="registered"');
    expect(page.text).not.toContain('data-provenance="dynamic"');
  });
});

describe('the MCP Inspector’s route', () => {
  it('completes with a pre-registered client for its web and CLI callbacks, the web exchange answered to its origin', async () => {
    await using t = await testApp({ template });
    const scene = await sceneOf(t);
    // the web Inspector comes back to its own origin; the CLI (`--client-id`) listens on 127.0.0.1:6276
    const routes = [
      { redirectUri: 'http://localhost:6274/oauth/callback', origin: 'http://localhost:6274' },
      { redirectUri: 'http://127.0.0.1:6276/oauth/callback', origin: undefined },
    ];
    await clientsOf(t.app).save(
      { id: 'mcp-inspector', name: 'MCP Inspector', redirectUris: routes.map((r) => r.redirectUri) },
      cliActor(),
    );
    for (const { redirectUri, origin } of routes) {
      const { verifier, challenge } = pkce();
      const query = authorizeQuery(scene, 'mcp-inspector', challenge, { redirect_uri: redirectUri });
      const path = await reachConsent(scene, query);
      const page = await scene.browser.get(path);
      expect(page.text).toContain(`<strong data-redirect-host>${new URL(redirectUri).host}</strong>`);
      expect(page.text).toContain('data-provenance="registered"');
      const back = await consent(scene, path, { decision: 'grant', rights: ['bookings.read'] });
      expect(back.origin + back.pathname).toBe(redirectUri);
      const exchanged = await fetch(`${scene.origin}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(origin ? { origin } : {}),
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: back.searchParams.get('code') ?? '',
          redirect_uri: redirectUri,
          client_id: 'mcp-inspector',
          code_verifier: verifier,
          resource: scene.mcpUrl.href,
        }).toString(),
      });
      expect(exchanged.status).toBe(200);
      // the web Inspector runs in a browser on localhost:6274: the token endpoint answers CORS to that origin
      if (origin) expect(exchanged.headers.get('access-control-allow-origin')).toBe(origin);
      const { access_token } = (await exchanged.json()) as { access_token: string };
      expect((await rawClient(scene.mcpUrl, access_token).listTools()).status).toBe(200);
    }
  });
});
