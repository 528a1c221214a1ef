/**
 * Sign-in and consent in a real browser, the way a desktop client sends a
 * person there: the authorization URL opened, the product's sign-in, the
 * consent page, and the client's loopback callback. Sign-out ends what the
 * client can get without the person; another person signing in answers for
 * themself; the workspace shown when Allow is pressed is the one granted;
 * a client name with bidi overrides renders cleaned.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { canaryReport, visibleText } from '../../../../test/canary.js';
import { browserAvailable, describeWithBrowser } from '../../../../test/chromium.js';
import { createSignInLink } from '../../src/pages/index.js';
import { authorizeQuery, pkce, registerClient } from '../fixtures/oauthFlow.js';
import { browserSuite, fillSignIn, openSite, PEOPLE, type Site, submit } from './site.js';

const availability = await browserAvailable();

/** The client's loopback callback: every query it received. */
async function callback(): Promise<{ url: string; received: URLSearchParams[] } & AsyncDisposable> {
  const received: URLSearchParams[] = [];
  const server: Server = createServer((request, response) => {
    // the browser asks for /favicon.ico too: only the callback's requests count
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') received.push(url.searchParams);
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><p>You may close this window.</p>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    received,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The authorization URL a client opens in the person's browser. */
const authorizeUrl = (site: Site, clientId: string, redirectUri: string): string =>
  `${site.origin}${authorizeQuery(site, clientId, pkce().challenge, {
    redirect_uri: redirectUri,
    scope: 'bookings.read customers.read',
  })}`;

const oauthCredentials = (site: Site) =>
  site.t.rows<{ creator_id: string; tenant_ids: string; rights: string }>(
    "SELECT creator_id, tenant_ids, rights FROM gatehouse_credentials WHERE client_label LIKE 'OAuth:%' ORDER BY created_at, id",
  );

/** Presses Allow on the consent page shown and waits for the client's callback. */
async function allow(page: Page, redirectUri: string): Promise<void> {
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(redirectUri)),
    page.click('button[name="decision"][value="grant"]'),
  ]);
}

describeWithBrowser(availability, 'sign-in and consent in the browser', () => {
  const suite = browserSuite();

  it('after sign-out the client gets nothing until a person signs in; the next person answers for themself', async () => {
    await using site = await openSite(suite.template, { oauth: { dynamicRegistration: true } });
    await using client = await callback();
    const clientId = await registerClient(site.origin, 'Desk Client');
    const context = await suite.browser.person();
    const page = await site.signIn(context, PEOPLE.olivia, '/tokens');

    await page.goto(authorizeUrl(site, clientId, client.url));
    expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/consent\//);
    await allow(page, client.url);
    expect(client.received).toHaveLength(1);
    expect(client.received[0]?.get('code')).toBeTruthy();

    await page.goto(`${site.origin}/tokens`);
    await submit(page, 'form[data-form=signout]', 'Sign out');
    await page.goto(authorizeUrl(site, clientId, client.url));
    expect(new URL(page.url()).pathname).toBe('/signin');
    expect(client.received).toHaveLength(1);

    // Dan signs in on the sign-in page the consent sent the browser to, and lands back on the consent
    const dan = await site.credentialsOf(PEOPLE.dan);
    await fillSignIn(page, dan.email, dan.password);
    expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/consent\//);
    expect(await page.locator('[data-sentence]').textContent()).toContain('Dan');
    await allow(page, client.url);
    expect((await oauthCredentials(site)).map((c) => c.creator_id)).toEqual([PEOPLE.olivia, PEOPLE.dan]);
  });

  it('returns a one-time link opened from the consent’s sign-in to the consent', async () => {
    await using site = await openSite(suite.template, { oauth: { dynamicRegistration: true } });
    await using client = await callback();
    const clientId = await registerClient(site.origin);
    const page = await (await suite.browser.person()).newPage();
    await page.goto(authorizeUrl(site, clientId, client.url));
    expect(new URL(page.url()).pathname).toBe('/signin');
    const consentPath = new URL(page.url()).searchParams.get('return');
    await page.goto(await createSignInLink(site.t.app, PEOPLE.olivia));
    expect(new URL(page.url()).pathname).toBe(consentPath);
    await allow(page, client.url);
    expect(client.received[0]?.get('code')).toBeTruthy();
  });

  it('grants the workspace the page shows when Allow is pressed, with that workspace’s rights', async () => {
    await using site = await openSite(suite.template, { oauth: { dynamicRegistration: true } });
    await using client = await callback();
    const clientId = await registerClient(site.origin);
    const page = await site.signIn(await suite.browser.person(), PEOPLE.olivia, '/tokens');
    await page.goto(authorizeUrl(site, clientId, client.url));
    expect(await page.locator('strong[data-workspace]').textContent()).toBe('Acme Heating');
    await submit(page, 'a[data-workspace-link=ws_globex]', '', 'link');
    expect(await page.locator('strong[data-workspace]').textContent()).toBe('Globex Plumbing');
    await expect(page.getByRole('button', { name: 'Allow for Globex Plumbing' }).count()).resolves.toBe(1);
    await allow(page, client.url);
    const [credential] = await oauthCredentials(site);
    expect(credential?.tenant_ids).toBe('["ws_globex"]');
    expect(JSON.parse(credential?.rights ?? '[]').sort()).toEqual(['bookings.read', 'customers.read']);
  });

  it('renders a client name with bidi overrides cleaned, and says it registered itself', async () => {
    await using site = await openSite(suite.template, { oauth: { dynamicRegistration: true } });
    await using client = await callback();
    const clientId = await registerClient(site.origin, 'Claude Desktop\u202E moc.live\u2066');
    const page = await site.signIn(await suite.browser.person(), PEOPLE.olivia, '/tokens');
    await page.goto(authorizeUrl(site, clientId, client.url));
    const text = await visibleText(page);
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/u);
    expect(text).toContain('Claude Desktop moc.live asks to act for you');
    expect(text).toContain('It registered itself: the name is unverified');
    expect(await page.locator('[data-redirect-host]').textContent()).toBe(new URL(client.url).host);
    expect(await canaryReport(page)).toEqual({ pwned: undefined, dialogs: [], injectedElements: 0 });
  });
});
