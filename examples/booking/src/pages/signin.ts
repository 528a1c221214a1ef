import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { BookingApp } from '../app.js';
import {
  csrfFor,
  formOf,
  nowOf,
  type PageContext,
  type PageEnv,
  type PageOptions,
  signedIn,
} from './context.js';
import { PAGE_COOKIE, PRE_SESSION_COOKIE, readCookie, secureRequest, setCookie } from './cookies.js';
import { csrfField, render, seeOther } from './layout.js';
import { readForm, sameOriginPosts } from './security.js';
import { requireSignIn } from './session.js';
import { signInThrottle } from './throttle.js';

/** The one answer for every failed or throttled sign-in: it tells an attacker nothing. */
export const SIGN_IN_FAILED = 'Sign-in failed. Check your e-mail and password, or try again later.';
const PRE_SESSION_SECONDS = 3_600;

/**
 * Where to go after signing in: `path` when it is a same-origin path
 * (starts with `/`, not `//`, no backslash, no control character, no
 * scheme), else `/approvals`.
 */
export function safeReturn(path: string | undefined): string {
  if (!path?.startsWith('/') || path.startsWith('//')) return '/approvals';
  if (path.includes('\\') || [...path].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
    return '/approvals';
  }
  try {
    const url = new URL(path, 'http://pages.invalid');
    return url.origin === 'http://pages.invalid' ? path : '/approvals';
  } catch {
    return '/approvals';
  }
}

function form(csrf: string, returnTo: string, email = '') {
  return html`<form data-form="signin" method="post" action="/signin">
  ${csrfField(csrf)}
  <input type="hidden" name="return" value="${returnTo}">
  <label>E-mail <input type="email" name="email" value="${email}" autocomplete="username" required></label>
  <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>`;
}

/** The sign-in page, with a pre-session cookie its CSRF token is bound to (reused when present). */
function signInPage(
  app: BookingApp,
  c: PageContext,
  options: {
    status: number;
    returnTo: string;
    email?: string;
    error?: string;
    headers?: Record<string, string>;
  },
) {
  const secure = secureRequest(c.req.raw, app.publicUrl.get());
  const pre = readCookie(c.req.raw, PRE_SESSION_COOKIE) ?? randomBytes(32).toString('base64url');
  const body = html`${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
${form(csrfFor(`pre:${pre}`), options.returnTo, options.email)}`;
  return render(
    options.status,
    { title: 'Sign in', body },
    {
      'set-cookie': setCookie(PRE_SESSION_COOKIE, pre, PRE_SESSION_SECONDS, secure),
      ...options.headers,
    },
  );
}

/** Opens the page session: the old one (if any) is deleted and a new id issued. */
async function signInResponse(
  app: BookingApp,
  c: PageContext,
  session: { token: string; expiresAt: number },
  location: string,
): Promise<Response> {
  const previous = readCookie(c.req.raw, PAGE_COOKIE);
  if (previous) await app.apiAccess.logout(previous);
  const secure = secureRequest(c.req.raw, app.publicUrl.get());
  const maxAge = (session.expiresAt - nowOf(app)) / 1000;
  // the pre-session cookie bound only the sign-in form's CSRF token: it goes with the sign-in
  return seeOther(location, [
    setCookie(PAGE_COOKIE, session.token, maxAge, secure),
    setCookie(PRE_SESSION_COOKIE, '', 0, secure),
  ]);
}

/** Sign-in (password and one-time link) and sign-out. */
export function signInRoutes(pages: Hono<PageEnv>, app: BookingApp, options: PageOptions): void {
  const throttle = signInThrottle(app, options);
  pages.get('/signin', (c) =>
    signInPage(app, c, { status: 200, returnTo: safeReturn(c.req.query('return')) }),
  );
  pages.post('/signin', sameOriginPosts(app), readForm(app), async (c) => {
    const fields = formOf(c);
    const email = (fields.get('email') ?? '').slice(0, 200);
    const password = (fields.get('password') ?? '').slice(0, 200);
    const returnTo = safeReturn(fields.get('return'));
    const address = options.clientAddress?.(c.req.raw) ?? 'unknown';
    const attempt = await throttle.attempt(email, address);
    if (!attempt.ok) {
      app.logger.info({ event: 'pages', status: 429, refused: 'signin_throttled' }, 'pages');
      const headers = { 'retry-after': String(attempt.retryAfterSeconds) };
      return signInPage(app, c, { status: 429, returnTo, email, error: SIGN_IN_FAILED, headers });
    }
    const session = email && password ? await app.apiAccess.login(email, password) : undefined;
    if (!session) return signInPage(app, c, { status: 401, returnTo, email, error: SIGN_IN_FAILED });
    await attempt.succeeded();
    return signInResponse(app, c, session, returnTo);
  });
  pages.get('/signin/link/:token', async (c) => {
    const session = await app.apiAccess.redeemSignInLink(c.req.param('token'));
    if (session) return signInResponse(app, c, session, '/approvals');
    const body = html`<p class="error">This sign-in link is unknown, used or expired. Links work once, for 15 minutes.</p>
<p><a href="/signin">Sign in with your password</a></p>`;
    return render(404, { title: 'Link not valid', body });
  });
  pages.post('/signout', sameOriginPosts(app), requireSignIn(app), readForm(app), async (c) => {
    await app.apiAccess.logout(signedIn(c).sessionToken);
    return seeOther('/signin', [
      setCookie(PAGE_COOKIE, '', 0, secureRequest(c.req.raw, app.publicUrl.get())),
    ]);
  });
}
