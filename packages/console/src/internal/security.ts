import { randomBytes } from 'node:crypto';
import { refuseMcpTokens } from '@gatehousejs/access';
import { boundedText } from '@gatehousejs/core/internal';
import type { MiddlewareHandler } from 'hono';
import type { FormFields, SignedIn } from '../options.js';
import { type ConsoleEnv, csrfFor, sameSecret } from './context.js';
import { clearEverywhere, conflictingCookies, cookieName, cookiesOf, secureRequest } from './cookies.js';
import type { Kit } from './kit.js';
import { seeOther } from './layout.js';

type Step = MiddlewareHandler<ConsoleEnv>;

/**
 * The headers of every console response: no framing (CSP `frame-ancestors`
 * and, for browsers that predate it, `X-Frame-Options`), no script or style
 * but the console's own (no `form-action`: the consent page's answer redirects
 * to the client's own address), no caching, no sniffing, no referrer to other sites.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
});

/** Sets {@link CONSOLE_HEADERS} on whatever a route answered. */
export function consoleHeaders(): Step {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(CONSOLE_HEADERS)) c.res.headers.set(name, value);
  };
}

/**
 * A request carrying one of the console's cookies (or a module's) twice is
 * refused (400) before any page reads it, with `Set-Cookie` lines deleting
 * every copy it can: the second copy was planted by another origin of the
 * host (cookies ignore ports), and reading either would let it choose who
 * the person is.
 */
export function oneCookieEach(kit: Kit, own: readonly string[], foreign: readonly string[]): Step {
  return async (c, next) => {
    const secure = secureRequest(c.req.raw, kit.runtime.origin());
    const names = [...own.map((base) => cookieName(base, secure)), ...foreign];
    const twice = conflictingCookies(c.req.raw, names);
    if (twice.length === 0) return next();
    kit.runtime.logger.info({ event: 'console', status: 400, refused: 'cookie_conflict' }, 'console');
    const response = await kit.error(
      c,
      400,
      'Conflicting cookies',
      'Your browser sent two different sign-in cookies for this site, one of them set by another site on this host. Both are now deleted: sign in again. Serve the console on a host name of its own.',
    );
    const { pathname } = new URL(c.req.url);
    for (const name of twice)
      for (const line of clearEverywhere(name, pathname, secure)) response.headers.append('set-cookie', line);
    return response;
  };
}

/**
 * No console page works with an MCP token (I5): any `Authorization` header,
 * or an MCP token in a cookie or a query parameter, answers 401 and no page.
 */
export function refuseTokens(kit: Kit): Step {
  const { credentials } = kit.runtime.options;
  const refusal = refuseMcpTokens(credentials.isMcpToken);
  return async (c, next) => {
    const { searchParams } = new URL(c.req.url);
    const inQuery = [...searchParams.values()].some((value) => credentials.isMcpToken(value));
    if (c.req.header('authorization') === undefined && !inQuery && !refusal.check(c.req.raw)) return next();
    kit.runtime.logger.info(
      { event: 'console', method: c.req.method, status: 401, refused: 'token' },
      'console',
    );
    return kit.error(
      c,
      401,
      'Not accepted here',
      'These pages take a signed-in session only. MCP tokens and Authorization headers are refused; sign in instead.',
    );
  };
}

/** Every POST must come from this origin: `Origin` equal to the request's own or the console's public one. */
export function sameOriginPosts(kit: Kit): Step {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const origin = c.req.header('origin');
    const allowed = new Set([new URL(c.req.url).origin, new URL(kit.runtime.origin()).origin]);
    if (origin !== undefined && allowed.has(origin)) return next();
    kit.runtime.logger.info({ event: 'console', method: 'POST', status: 403, refused: 'origin' }, 'console');
    return kit.error(
      c,
      403,
      'Form not accepted',
      'This form must be sent from a page of this site; nothing was changed. Reload the page and try again.',
    );
  };
}

const PRESESSION_SECONDS = 3_600;

/**
 * A visitor not signed in gets a pre-session cookie on a public page, and a
 * public form's CSRF token is bound to it (a sign-in form cannot be posted
 * from another site with a token of its own).
 */
export function presession(kit: Kit): Step {
  const name = kit.runtime.cookie('presession');
  return async (c, next) => {
    if (c.get('person')) return next();
    const cookies = cookiesOf(c.req.raw, kit.runtime.origin());
    const existing = cookies.read(name);
    const value = existing ?? randomBytes(32).toString('base64url');
    c.set('presession', value);
    await next();
    if (!existing && c.req.method === 'GET')
      c.res.headers.append('set-cookie', cookies.set(name, value, PRESESSION_SECONDS));
  };
}

/** The `Set-Cookie` line that ends a pre-session (at sign-in: it bound only the sign-in form). */
export const endPresession = (kit: Kit, request: Request): string =>
  cookiesOf(request, kit.runtime.origin()).clear(kit.runtime.cookie('presession'));

const MAX_FORM_BYTES = 16 * 1024;

function fieldsOf(params: URLSearchParams): FormFields {
  return {
    get: (name) => params.get(name) ?? undefined,
    all: (name) => params.getAll(name),
  };
}

/**
 * Reads a POSTed form (URL-encoded, at most 16 KiB), refuses an MCP token in
 * any field (401), and checks its CSRF token against the session, or for a
 * visitor against the pre-session cookie (403 when missing or wrong).
 */
export function readForm(kit: Kit): Step {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    // read within the bound, declared or streamed: an endless body is never held in memory
    const body = await boundedText(c.req.raw, MAX_FORM_BYTES);
    if (body === undefined) return kit.error(c, 413, 'Too large', 'The form is larger than 16 KiB.');
    const params = new URLSearchParams(body);
    if ([...params.values()].some((value) => kit.runtime.options.credentials.isMcpToken(value))) {
      return kit.error(c, 401, 'Not accepted here', 'MCP tokens are accepted only by the MCP endpoint.');
    }
    const who = c.get('person');
    const pre = c.get('presession');
    const expected = who ? who.csrf : pre ? csrfFor(`pre:${pre}`) : undefined;
    if (!expected || !sameSecret(params.get('csrf') ?? undefined, expected)) {
      kit.runtime.logger.info({ event: 'console', method: 'POST', status: 403, refused: 'csrf' }, 'console');
      const hint = who ? '' : ' Your browser must accept cookies for this site.';
      return kit.error(
        c,
        403,
        'Form not accepted',
        `The form's security token is missing or wrong; nothing was changed. Reload the page and try again.${hint}`,
      );
    }
    c.set('form', fieldsOf(params));
    return next();
  };
}

/** The person of the request with their session's CSRF token, or undefined. */
export async function personOf(kit: Kit, request: Request): Promise<SignedIn | undefined> {
  const person = await kit.runtime.signIn.personOf(request);
  const home = person?.workspaces[0];
  if (!person || !home || typeof person.session !== 'string' || person.session.length < 16) return undefined;
  return { ...person, home, csrf: csrfFor(person.session) };
}

/** Reads who is signed in; on a page that needs it, a visitor is sent to sign in and back (GET) or refused. */
export function signInStep(kit: Kit, required: boolean): Step {
  return async (c, next) => {
    const who = await personOf(kit, c.req.raw);
    c.set('person', who);
    if (who || !required) return next();
    // a GET comes back here after sign-in; a form sent without a session changes nothing and starts over
    const url = new URL(c.req.url);
    const back =
      c.req.method === 'GET' || c.req.method === 'HEAD'
        ? url.pathname + url.search
        : kit.runtime.path('/approvals');
    return seeOther(kit.runtime.signIn.signInUrl(back));
  };
}
