import { MemoryRateBucketStore } from '@gatehousejs/core';
import { cookieFrom, FormBrowser } from '@gatehousejs/testing';
import { describe, expect, it } from 'vitest';
import { passwordSignIn, SIGN_IN_FAILED } from '../src/index.js';
import { desk, ORIGIN, type Right } from './host.js';

/** Ada's account on a desk whose console signs people in itself. */
function passwordDesk(options: { accountFailures?: number } = {}) {
  const sessions = new Map<string, { personId: string; signedInAt: number }>();
  const links = new Set(['link_1']);
  const ended: string[] = [];
  let opened = 0;
  const open = () => {
    const token = `session_${++opened}_${'s'.repeat(20)}`;
    sessions.set(token, { personId: 'p_ada', signedInAt: Date.now() });
    return { token, expiresAt: Date.now() + 3_600_000 };
  };
  const rateBuckets = new MemoryRateBucketStore();
  const d = desk({
    basePath: '/console',
    cookiePrefix: 'desk',
    signIn: passwordSignIn<Right>({
      accounts: {
        login: async (email, password) =>
          email === 'ada@desk.example' && password === 'right' ? open() : undefined,
        session: async (token) => sessions.get(token),
        logout: async (token) => {
          ended.push(token);
          sessions.delete(token);
        },
        redeemLink: async (token) => (links.delete(token) ? open() : undefined),
        person: async (id) =>
          id === 'p_ada'
            ? {
                id,
                name: 'Ada Owner',
                workspaces: [{ id: 'ws_acme', name: 'Acme', owner: true, rights: [] }],
              }
            : undefined,
      },
      throttle: { store: rateBuckets, accountFailures: options.accountFailures ?? 3 },
      clearCookies: ['_session.legacy'],
    }),
  });
  const browser = () => new FormBrowser(ORIGIN, d.console.fetch);
  return { d, sessions, ended, browser, rateBuckets };
}

describe('passwordSignIn', () => {
  it('signs in to the page asked for with a new __Host- session, ending the pre-session and any old session', async () => {
    const { browser, sessions } = passwordDesk();
    const b = browser();
    const asked = await b.get('/console/tokens');
    expect(asked.headers.get('location')).toBe('/console/signin?return=%2Fconsole%2Ftokens');
    const form = await b.get(asked.headers.get('location') ?? '');
    expect(form.status).toBe(200);
    expect(form.cookies.some((c) => c.startsWith('__Host-desk_presession='))).toBe(true);
    const signedIn = await b.post('/console/signin', {
      email: 'ada@desk.example',
      password: 'right',
      return: '/console/tokens',
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/console/tokens');
    const session = cookieFrom(signedIn.cookies, '__Host-desk_page') ?? '';
    expect(sessions.has(decodeURIComponent(session))).toBe(true);
    expect(signedIn.cookies).toContain(
      '__Host-desk_presession=; HttpOnly; Path=/; SameSite=Lax; Secure; Max-Age=0',
    );
    expect(signedIn.cookies).toContain('_session.legacy=; HttpOnly; Path=/; SameSite=Lax; Secure; Max-Age=0');
    expect((await b.get('/console/tokens')).status).toBe(200);
  });

  it('answers every failure the same, and throttles an account even for the right password', async () => {
    const { browser } = passwordDesk({ accountFailures: 3 });
    const b = browser();
    await b.get('/console/signin');
    for (let i = 0; i < 3; i++) {
      const wrong = await b.post('/console/signin', { email: 'ada@desk.example', password: 'wrong' });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain(SIGN_IN_FAILED);
    }
    const throttled = await b.post('/console/signin', { email: 'ada@desk.example', password: 'right' });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(throttled.text).toContain(SIGN_IN_FAILED);
    expect(b.jar.has('__Host-desk_page')).toBe(false);
  });

  it('returns only to console paths of this origin', async () => {
    const { browser } = passwordDesk();
    for (const target of [
      'https://evil.example/',
      '//evil.example',
      '/\\evil',
      '/approvals',
      '/console/../x',
    ]) {
      const b = browser();
      await b.get('/console/signin');
      const page = await b.post('/console/signin', {
        email: 'ada@desk.example',
        password: 'right',
        return: target,
      });
      expect(page.headers.get('location'), target).toBe('/console/approvals');
    }
  });

  it('signs in once with a link, and signs out server-side', async () => {
    const { browser, ended } = passwordDesk();
    const b = browser();
    const used = await b.get('/console/signin/link/link_1');
    expect(used.status).toBe(303);
    expect((await browser().get('/console/signin/link/link_1')).status).toBe(404);
    await b.get('/console/approvals');
    const session = decodeURIComponent(b.jar.get('__Host-desk_page') ?? '');
    const out = await b.post('/console/signout');
    expect(out.status).toBe(303);
    expect(ended).toContain(session);
    expect(b.jar.has('__Host-desk_page')).toBe(false);
    expect((await b.get('/console/approvals')).status).toBe(303);
  });

  it('refuses a sign-in form posted without its pre-session token or from another origin', async () => {
    const { browser } = passwordDesk();
    const b = browser();
    await b.get('/console/signin');
    expect(
      (await b.post('/console/signin', { email: 'ada@desk.example', password: 'right' }, { csrf: null }))
        .status,
    ).toBe(403);
    expect(
      (
        await b.post(
          '/console/signin',
          { email: 'ada@desk.example', password: 'right' },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    expect(b.jar.has('__Host-desk_page')).toBe(false);
  });
});
