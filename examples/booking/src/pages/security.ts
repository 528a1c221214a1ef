import { refuseMcpTokens } from '@gatehousejs/access';
import type { MiddlewareHandler } from 'hono';
import { boundedBody } from '../api/http.js';
import type { BookingApp } from '../app.js';
import { csrfFor, type FormFields, type PageEnv, sameSecret } from './context.js';
import {
  clearEverywhere,
  conflictingCookies,
  PAGE_COOKIE,
  PRE_SESSION_COOKIE,
  pageCookies,
  secureRequest,
} from './cookies.js';
import { errorPage } from './layout.js';

type Step = MiddlewareHandler<PageEnv>;

/**
 * The headers of every page response: no framing (CSP `frame-ancestors` and,
 * for browsers that predate it, `X-Frame-Options`), no script but our own
 * origin's, no caching, no sniffing.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
});

/** Sets {@link PAGE_HEADERS} on whatever a page route answered. */
export const pageHeaders: Step = async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.res.headers.set(name, value);
};

/**
 * A request carrying one of the pages' cookies twice is refused (400) before
 * any page reads it, with `Set-Cookie` lines deleting every copy it could
 * delete: the second copy was planted by another origin of the host (cookies
 * ignore ports), and reading either would let it choose who the person is.
 */
export function oneCookieEach(app: BookingApp): Step {
  return async (c, next) => {
    const secure = secureRequest(c.req.raw, app.publicUrl.get());
    const twice = conflictingCookies(c.req.raw, secure);
    if (twice.length === 0) return next();
    app.logger.info({ event: 'pages', status: 400, refused: 'cookie_conflict' }, 'pages');
    const response = await errorPage(
      c,
      400,
      'Conflicting cookies',
      'Your browser sent two different sign-in cookies for this site, one of them set by another site on this host. Both are now deleted: sign in again. Serve these pages on a host name of their own.',
    );
    const { pathname } = new URL(c.req.url);
    for (const name of twice)
      for (const line of clearEverywhere(name, pathname, secure)) response.headers.append('set-cookie', line);
    return response;
  };
}

/**
 * No page works with an MCP token (I5): any `Authorization` header, or an
 * MCP token in a cookie or a query parameter, answers 401 and no page.
 */
export function refuseTokens(app: BookingApp): Step {
  const refusal = refuseMcpTokens(app.credentials.isMcpToken);
  return async (c, next) => {
    const { searchParams } = new URL(c.req.url);
    const inQuery = [...searchParams.values()].some((value) => app.credentials.isMcpToken(value));
    if (c.req.header('authorization') === undefined && !inQuery && !refusal.check(c.req.raw)) return next();
    app.logger.info({ event: 'pages', method: c.req.method, status: 401, refused: 'token' }, 'pages');
    return errorPage(
      c,
      401,
      'Not accepted here',
      'These pages take a signed-in session only. MCP tokens and Authorization headers are refused; sign in instead.',
    );
  };
}

/**
 * Every POST must come from this origin: `Origin` equal to the request's
 * own origin or the configured public one. A missing Origin is refused too.
 */
export function sameOriginPosts(app: BookingApp): Step {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const origin = c.req.header('origin');
    const allowed = new Set([new URL(c.req.url).origin, app.publicUrl.get()]);
    if (origin !== undefined && allowed.has(origin)) return next();
    return errorPage(
      c,
      403,
      'Refused',
      'This form must be sent from this site. Reload the page and try again.',
    );
  };
}

const MAX_FORM_BYTES = 16 * 1024;

function fieldsOf(params: URLSearchParams): FormFields {
  return {
    get: (name) => params.get(name) ?? undefined,
    all: (name) => params.getAll(name),
  };
}

/**
 * Reads a POSTed form (URL-encoded, at most 16 KiB), refuses an MCP token
 * in any field (401), and checks its CSRF token against the session, or on
 * sign-in against the pre-session cookie (403 when missing or wrong).
 */
export function readForm(app: BookingApp): Step {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    // read within the bound, declared or streamed: an endless body is never held in memory
    const body = await boundedBody(c.req.raw, MAX_FORM_BYTES);
    if (!body) return errorPage(c, 413, 'Too large', 'The form is larger than 16 KiB.');
    const params = new URLSearchParams(body.toString('utf8'));
    if ([...params.values()].some((value) => app.credentials.isMcpToken(value))) {
      return errorPage(c, 401, 'Not accepted here', 'MCP tokens are accepted only by the MCP endpoint.');
    }
    const who = c.get('signedIn');
    const cookies = pageCookies(c.req.raw, app.publicUrl.get());
    const pre = cookies.read(PRE_SESSION_COOKIE);
    const session = cookies.read(PAGE_COOKIE);
    const secret = who ? who.sessionToken : pre ? `pre:${pre}` : undefined;
    const expected = who ? who.csrf : secret && csrfFor(secret);
    if (!expected || !sameSecret(params.get('csrf') ?? undefined, expected)) {
      app.logger.info({ event: 'pages', method: c.req.method, status: 403, refused: 'csrf' }, 'pages');
      const hint = who || session ? '' : ' Your browser must accept cookies for this site.';
      return errorPage(
        c,
        403,
        'Refused',
        `The form's security token is missing or wrong. Reload the page and try again.${hint}`,
      );
    }
    c.set('form', fieldsOf(params));
    return next();
  };
}
