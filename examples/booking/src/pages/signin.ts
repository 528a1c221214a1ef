import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import type { BookingApp } from '../app.js';
import { PROVIDER_SESSION_COOKIES } from '../oauth/sessionCookies.js';
import {
  csrfFor,
  formOf,
  nowOf,
  type PageContext,
  type PageEnv,
  type PageOptions,
  signedIn,
} from './context.js';
import { PAGE_COOKIE, PRE_SESSION_COOKIE, pageCookies, RETURN_COOKIE, setCookie } from './cookies.js';
import { html } from './html.js';
import { csrfField, render, seeOther } from './layout.js';
import { readForm, sameOriginPosts } from './security.js';
import { requireSignIn } from './session.js';
import { signInThrottle } from './throttle.js';

/** The one answer for every failed or throttled sign-in: it tells an attacker nothing. */
export const SIGN_IN_FAILED = 'Sign-in failed. Check your e-mail and password, or try again later.';
const PRE_SESSION_SECONDS = 3_600;
/** Where a sign-in lands when it was not started from a page. */
const DEFAULT_RETURN = '/approvals';

/**
 * Where to go after signing in: `path` when it is a same-origin path
 * (starts with `/`, not `//`, no backslash, no control character, no
 * scheme), else `/approvals`.
 */
export function safeReturn(path: string | undefined): string {
  if (!path?.startsWith('/') || path.startsWith('//')) return DEFAULT_RETURN;
  if (path.includes('\\') || [...path].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
    return DEFAULT_RETURN;
  }
  try {
    const url = new URL(path, 'http://pages.invalid');
    return url.origin === 'http://pages.invalid' ? path : DEFAULT_RETURN;
  } catch {
    return DEFAULT_RETURN;
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
async function signInPage(
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
  const cookies = pageCookies(c.req.raw, app.publicUrl.get());
  const pre = cookies.read(PRE_SESSION_COOKIE) ?? randomBytes(32).toString('base64url');
  const body = html`${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
${form(csrfFor(`pre:${pre}`), options.returnTo, options.email)}
${options.returnTo === DEFAULT_RETURN ? '' : html`<p data-return-note>A one-time sign-in link opened in this browser also brings you back here.</p>`}`;
  const response = await render(options.status, { title: 'Sign in', body }, options.headers);
  response.headers.append('set-cookie', cookies.set(PRE_SESSION_COOKIE, pre, PRE_SESSION_SECONDS));
  // a sign-in started from a page returns to it, by the form or by a one-time link
  if (options.returnTo !== DEFAULT_RETURN)
    response.headers.append('set-cookie', cookies.set(RETURN_COOKIE, options.returnTo, PRE_SESSION_SECONDS));
  return response;
}

/** Opens the page session: the old one (if any) is deleted and a new id issued. */
async function signInResponse(
  app: BookingApp,
  c: PageContext,
  session: { token: string; expiresAt: number },
  location: string,
): Promise<Response> {
  const cookies = pageCookies(c.req.raw, app.publicUrl.get());
  const previous = cookies.read(PAGE_COOKIE);
  if (previous) await app.apiAccess.logout(previous);
  const maxAge = (session.expiresAt - nowOf(app)) / 1000;
  // the pre-session cookie bound only the sign-in form's CSRF token: it goes with the sign-in
  return seeOther(location, [
    cookies.set(PAGE_COOKIE, session.token, maxAge),
    cookies.clear(PRE_SESSION_COOKIE),
    cookies.clear(RETURN_COOKIE),
    ...providerSessionCleared(cookies.secure),
  ]);
}

/**
 * Deletes the authorization server's own session cookies, should a browser
 * carry them: the provider never reads them (every authorization request
 * goes to the consent page, which asks the product's session), and a
 * sign-in or sign-out leaves no trace of the previous person.
 */
function providerSessionCleared(secure: boolean): string[] {
  return PROVIDER_SESSION_COOKIES.map((name) => setCookie(name, '', 0, secure));
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
    const returnTo = safeReturn(pageCookies(c.req.raw, app.publicUrl.get()).read(RETURN_COOKIE));
    if (session) return signInResponse(app, c, session, returnTo);
    const body = html`<p class="error">This sign-in link is unknown, used or expired. Links work once, for 15 minutes.</p>
<p><a href="/signin">Sign in with your password</a></p>`;
    return render(404, { title: 'Link not valid', body });
  });
  pages.post('/signout', sameOriginPosts(app), requireSignIn(app), readForm(app), async (c) => {
    await app.apiAccess.logout(signedIn(c).sessionToken);
    const cookies = pageCookies(c.req.raw, app.publicUrl.get());
    return seeOther('/signin', [
      cookies.clear(PAGE_COOKIE),
      cookies.clear(RETURN_COOKIE),
      ...providerSessionCleared(cookies.secure),
    ]);
  });
}
