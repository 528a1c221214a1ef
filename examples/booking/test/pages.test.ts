/**
 * The operator pages over HTTP: sign-in (password, one-time link, throttle,
 * return path), the session cookie, CSRF and Origin on every POST, MCP
 * tokens refused (I5), the security headers, escaping.
 */

import { sha256Hex as sha256 } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { createPagesHandler } from '../src/pages/index.js';
import { createSignInLink } from '../src/pages/signInLink.js';
import { testApp } from './fixtures/testApp.js';
import { cookieFrom, csrfIn, PagesBrowser, passwordOf, signedInBrowser } from './pagesClient.js';

const CANARY = '<script>window.__pwned=1</script>"><img src=x onerror=alert(1)>';

const expectPageHeaders = (headers: Headers) => {
  expect(headers.get('content-security-policy')).toBe("default-src 'self'; frame-ancestors 'none'");
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('same-origin');
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
};

const sessionRows = (t: Awaited<ReturnType<typeof testApp>>, token: string) =>
  t.count('sessions', 'token_hash = ?', sha256(token));

describe('the operator pages: sign-in', () => {
  it('sends the security headers on every page response, signed in or not, success or refusal', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t);
    const anonymous = new PagesBrowser(b.origin);
    const pages = [
      await anonymous.get('/signin'),
      await anonymous.get('/approvals'),
      await anonymous.get('/approvals', { authorization: 'Bearer x' }),
      await b.get('/approvals'),
      await b.get('/approvals/pa_unknown'),
      await b.get('/switches'),
      await b.get('/tokens'),
      await b.get('/audit'),
      await b.post('/switches/workspace', { on: '0' }, { csrf: 'wrong' }),
      await b.post('/switches/workspace', { on: '0' }, { origin: 'https://evil.example' }),
    ];
    expect(pages.map((p) => p.status)).toEqual([200, 303, 401, 200, 404, 200, 200, 200, 403, 403]);
    for (const page of pages) {
      expectPageHeaders(page.headers);
      // No script and no inline style anywhere: the CSP would block them.
      expect(page.text).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=/i);
    }
    const css = await anonymous.get('/assets/console.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('content-security-policy')).toBe("default-src 'self'; frame-ancestors 'none'");
  });

  it('renders the sign-in form with the contract selectors, and signs in to the return path', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const b = new PagesBrowser(mcpUrl.origin);
    const form = await b.get('/signin?return=%2Ftokens%3Fx%3D1');
    expect(form.text).toContain('data-form="signin"');
    for (const field of [
      'name="email"',
      'name="password"',
      'name="return" value="/tokens?x=1"',
      'name="csrf"',
    ])
      expect(form.text).toContain(field);
    expect(form.text).toMatch(/<button type="submit">Sign in<\/button>/);
    const { email, password } = await passwordOf(t, 'p_olivia');
    const done = await b.post('/signin', { email, password, return: '/tokens?x=1' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/tokens?x=1');
    const tokens = await b.get('/tokens?x=1');
    expect(tokens.status).toBe(200);
    expect(tokens.text).toContain('Olivia Owner');
    expect(tokens.text).toContain('Acme');
    for (const link of ['/approvals', '/switches', '/tokens', '/audit'])
      expect(tokens.text).toContain(`href="${link}"`);
    expect(tokens.text).toContain('data-form="signout"');
  });

  it('sets the session cookie HttpOnly, Path=/, SameSite=Lax; Secure and __Host- prefixed only over TLS', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const b = new PagesBrowser(mcpUrl.origin);
    const { email, password } = await passwordOf(t, 'p_olivia');
    const signIn = await b.signIn(email, password);
    const line = signIn.cookies.find((c) => c.startsWith('booking_page='));
    expect(line).toMatch(/; HttpOnly; Path=\/; SameSite=Lax; Max-Age=\d+$/);
    expect(line).not.toContain('Secure');
    // Over TLS (a request URL with https), the same handler adds Secure and the __Host- prefix.
    const handler = createPagesHandler(t.app).fetch;
    const origin = 'https://booking.example';
    const first = await handler(new Request(`${origin}/signin`));
    const pre = cookieFrom(first.headers.getSetCookie(), '__Host-booking_presession');
    expect(first.headers.getSetCookie()[0]).toContain('; Secure');
    const body = new URLSearchParams({
      csrf: csrfIn(await first.text()) ?? '',
      email,
      password,
      return: '/approvals',
    });
    const tls = await handler(
      new Request(`${origin}/signin`, {
        method: 'POST',
        headers: {
          origin,
          cookie: `__Host-booking_presession=${pre}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: body.toString(),
      }),
    );
    expect(tls.status).toBe(303);
    expect(tls.headers.getSetCookie().find((c) => c.startsWith('__Host-booking_page='))).toMatch(
      /; HttpOnly; Path=\/; SameSite=Lax; Secure; Max-Age=\d+$/,
    );
    // the pre-session cookie bound only the sign-in form: signing in deletes it
    expect(tls.headers.getSetCookie()).toContain(
      '__Host-booking_presession=; HttpOnly; Path=/; SameSite=Lax; Secure; Max-Age=0',
    );
  });

  it('rotates the session at sign-in: the cookie sent before is deleted server-side and a new id issued', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const b = new PagesBrowser(mcpUrl.origin);
    const planted = (await t.app.apiAccess.openSession('p_vera')).token;
    b.jar.set('booking_page', planted);
    expect(await sessionRows(t, planted)).toBe(1);
    const { email, password } = await passwordOf(t, 'p_olivia');
    await b.signIn(email, password);
    const issued = b.jar.get('booking_page') ?? '';
    expect(issued).not.toBe(planted);
    expect(await sessionRows(t, planted)).toBe(0);
    expect(await sessionRows(t, decodeURIComponent(issued))).toBe(1);
  });

  it('signs out: the session row is deleted, the cookie cleared, and the old cookie no longer works', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t);
    const token = decodeURIComponent(b.jar.get('booking_page') ?? '');
    const page = await b.get('/approvals');
    expect(page.text).toContain('data-form="signout"');
    const out = await b.post('/signout');
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/signin');
    expect(out.cookies.find((c) => c.startsWith('booking_page='))).toContain('Max-Age=0');
    expect(await sessionRows(t, token)).toBe(0);
    const replay = new PagesBrowser(b.origin);
    replay.jar.set('booking_page', encodeURIComponent(token));
    expect((await replay.get('/approvals')).status).toBe(303);
  });

  it('answers a wrong password with the form again, 401 and a generic message', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const b = new PagesBrowser(mcpUrl.origin);
    const { email } = await passwordOf(t, 'p_olivia');
    await b.get('/signin');
    const wrong = await b.post('/signin', { email, password: 'nope', return: '/approvals' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Sign-in failed. Check your e-mail and password, or try again later.');
    expect(wrong.text).toContain('data-form="signin"');
    expect(wrong.cookies.some((c) => c.startsWith('booking_page='))).toBe(false);
    const unknown = await b.post('/signin', {
      email: 'nobody@acme.example',
      password: 'x',
      return: '/approvals',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('Sign-in failed. Check your e-mail and password, or try again later.');
  });

  it('throttles one account after 5 failures (429, Retry-After, the same text), even with the right password', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const b = new PagesBrowser(mcpUrl.origin);
    const { email, password } = await passwordOf(t, 'p_dan');
    await b.get('/signin');
    for (let i = 0; i < 5; i++)
      expect((await b.post('/signin', { email, password: `bad${i}` })).status).toBe(401);
    const throttled = await b.post('/signin', { email, password });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.text).toContain('Sign-in failed. Check your e-mail and password, or try again later.');
    expect(throttled.cookies.some((c) => c.startsWith('booking_page='))).toBe(false);
    // Another account from the same address still signs in: the account's bucket is the one that is empty.
    const olivia = await passwordOf(t, 'p_olivia');
    expect((await b.post('/signin', olivia)).status).toBe(303);
    // The window passes: the account signs in again.
    t.advance(15 * 60_000);
    const c = new PagesBrowser(mcpUrl.origin);
    await c.signIn(email, password);
  });

  it('throttles one client address after 20 failures across accounts, in the shared bucket store', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const b = new PagesBrowser(mcpUrl.origin);
    await b.get('/signin');
    for (let i = 0; i < 20; i++) {
      expect((await b.post('/signin', { email: `guess${i}@acme.example`, password: 'x' })).status).toBe(401);
    }
    const { email, password } = await passwordOf(t, 'p_olivia');
    const throttled = await b.post('/signin', { email, password });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await t.count('gatehouse_rate_buckets', "key LIKE 'console.signin.address:%'")).toBe(1);
  });

  it('returns only to same-origin paths; anything else lands on /approvals', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const { email, password } = await passwordOf(t, 'p_olivia');
    const cases: [string, string][] = [
      ['//evil.example', '/approvals'],
      ['https://evil.example', '/approvals'],
      ['/\\evil.example', '/approvals'],
      ['javascript:alert(1)', '/approvals'],
      ['/\t/evil.example', '/approvals'],
      ['/audit?channel=mcp', '/audit?channel=mcp'],
    ];
    for (const [returnTo, expected] of cases) {
      const b = new PagesBrowser(mcpUrl.origin);
      const page = await b.signIn(email, password, returnTo);
      expect(page.headers.get('location'), returnTo).toBe(expected);
    }
  });

  it('redirects a signed-out request to the sign-in page with its path and query', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const b = new PagesBrowser(mcpUrl.origin);
    for (const path of [
      '/approvals',
      '/approvals/pa_x',
      '/switches',
      '/tokens',
      '/audit?channel=mcp&person=p_dan',
    ]) {
      const page = await b.get(path);
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe(`/signin?return=${encodeURIComponent(path)}`);
    }
    const root = await fetch(mcpUrl.origin, { redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/approvals');
  });

  it('refuses MCP tokens and any Authorization header with 401 and no page', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t);
    const mcp = await t.mint();
    const apiToken = (await t.app.apiAccess.createToken((await t.app.people.byId('p_olivia'))!, 'x')).token;
    const refused = [
      await b.get('/approvals', { authorization: `Bearer ${mcp}` }),
      await b.get('/approvals', { authorization: `Bearer ${apiToken}` }),
      await new PagesBrowser(b.origin).get('/approvals', { cookie: `booking_page=${mcp}` }),
      await b.get('/approvals', {
        cookie: `${[...b.jar].map(([k, v]) => `${k}=${v}`).join('; ')}; other=${mcp}`,
      }),
      await b.get(`/approvals?token=${mcp}`),
      await b.get(`/signin?return=${mcp}`),
    ];
    for (const page of refused) {
      expect(page.status).toBe(401);
      expect(page.text).not.toContain('data-approval-id');
      expect(page.text).not.toContain('Olivia Owner');
    }
    const posted = await b.post('/switches/workspace', { on: '0', note: mcp });
    expect(posted.status).toBe(401);
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(true);
  });

  it('signs in once with a one-time link, never twice, never after 15 minutes, never as a cookie', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const link = await createSignInLink(t.app, 'p_olivia');
    expect(link.startsWith(`${mcpUrl.origin}/signin/link/`)).toBe(true);
    const token = new URL(link).pathname.split('/').pop() ?? '';
    const asCookie = new PagesBrowser(mcpUrl.origin);
    asCookie.jar.set('booking_page', token);
    expect((await asCookie.get('/approvals')).status).toBe(303);
    const b = new PagesBrowser(mcpUrl.origin);
    const used = await b.get(new URL(link).pathname);
    expect(used.status).toBe(303);
    expect(used.headers.get('location')).toBe('/approvals');
    expect((await b.get('/approvals')).status).toBe(200);
    const again = await new PagesBrowser(mcpUrl.origin).get(new URL(link).pathname);
    expect(again.status).toBe(404);
    expect(again.cookies.some((c) => c.startsWith('booking_page='))).toBe(false);
    const late = await createSignInLink(t.app, 'p_olivia');
    t.advance(15 * 60_000 + 1);
    expect((await new PagesBrowser(mcpUrl.origin).get(new URL(late).pathname)).status).toBe(404);
  });

  it('lets exactly one of many parallel uses of a sign-in link sign in', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const path = new URL(await createSignInLink(t.app, 'p_olivia')).pathname;
    const sessionsBefore = await t.count('sessions');
    const uses = await Promise.all(
      Array.from({ length: 8 }, () => new PagesBrowser(mcpUrl.origin).get(path)),
    );
    expect(uses.filter((use) => use.status === 303)).toHaveLength(1);
    expect(uses.filter((use) => use.status === 404)).toHaveLength(7);
    // The link's row is gone and one session took its place.
    expect(await t.count('sessions')).toBe(sessionsBefore);
  });

  it('refuses a POST without CSRF token, with a wrong one, or from another origin or none: 403, nothing changed', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t);
    await b.get('/switches');
    const auditBefore = await t.count('gatehouse_audit', "action = 'switch.set'");
    const attempts = [
      await b.post('/switches/workspace', { on: '0' }, { csrf: null }),
      await b.post('/switches/workspace', { on: '0' }, { csrf: 'f'.repeat(64) }),
      await b.post('/switches/workspace', { on: '0' }, { origin: 'https://evil.example' }),
      await b.post('/switches/workspace', { on: '0' }, { origin: null }),
      await b.post('/switches/workspace', { on: '0' }, { origin: 'null' }),
    ];
    expect(attempts.map((a) => a.status)).toEqual([403, 403, 403, 403, 403]);
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(true);
    expect(await t.count('gatehouse_audit', "action = 'switch.set'")).toBe(auditBefore);
    // Sign-in is guarded the same way: no pre-session CSRF token, no sign-in.
    const { email, password } = await passwordOf(t, 'p_dan');
    const fresh = new PagesBrowser(b.origin);
    const noCsrf = await fresh.post('/signin', { email, password });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.cookies.some((c) => c.startsWith('booking_page='))).toBe(false);
    await fresh.get('/signin');
    expect(
      (await fresh.post('/signin', { email, password }, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    // The same form with the right token and origin works.
    expect((await b.post('/switches/workspace', { on: '0' })).status).toBe(303);
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(false);
  });

  it('refuses a form larger than 16 KiB with 413 before reading it, changing nothing', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t);
    await b.get('/switches');
    const big = await b.post('/switches/workspace', { on: '0', pad: 'x'.repeat(17 * 1024) });
    expect(big.status).toBe(413);
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(true);
  });

  it('refuses a streamed form that passes 16 KiB without a declared length, reading no more than the bound', async () => {
    await using t = await testApp();
    const handler = createPagesHandler(t.app).fetch;
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode('x'.repeat(4096)));
      },
    });
    const init = {
      method: 'POST',
      headers: { origin: 'http://127.0.0.1', 'content-type': 'application/x-www-form-urlencoded' },
      body: endless,
      duplex: 'half',
    };
    const response = await handler(new Request('http://127.0.0.1/signin', init as RequestInit));
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(6);
  });

  it('escapes every name and label it shows: the injection canary renders as text', async () => {
    await using t = await testApp();
    await t.exec('UPDATE people SET name = ? WHERE id = ?', CANARY, 'p_olivia');
    await t.exec('UPDATE workspaces SET name = ? WHERE id = ?', CANARY, 'ws_acme');
    const b = await signedInBrowser(t);
    await b.get('/tokens');
    const minted = await b.post('/tokens', { label: CANARY, rights: ['bookings.read'] });
    expect(minted.status).toBe(200);
    const pages = [
      minted,
      await b.get('/tokens'),
      await b.get('/approvals'),
      await b.get('/audit'),
      await b.get('/switches'),
    ];
    for (const page of pages) {
      expect(page.text).not.toContain('<script>window.__pwned');
      expect(page.text).not.toContain('<img src=x');
    }
    expect(minted.text).toContain(
      '&lt;script&gt;window.__pwned=1&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;',
    );
  });
});
