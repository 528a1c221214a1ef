import type { MiddlewareHandler } from 'hono';
import type { BookingApp } from '../app.js';
import { rightsOf } from '../domain/model.js';
import { csrfFor, type PageContext, type PageEnv, type SignedIn, sha256 } from './context.js';
import { FLASH_COOKIE, PAGE_COOKIE, pageCookies } from './cookies.js';
import { seeOther } from './layout.js';

/** The sign-in page that returns to `path` (a same-origin path and query) afterwards. */
export const signInReturningTo = (path: string): string => `/signin?return=${encodeURIComponent(path)}`;

/** The sign-in page for a request: returning to its path and query (GET), else plain `/signin`. */
function signInFor(request: Request): string {
  const url = new URL(request.url);
  if (request.method !== 'GET' && request.method !== 'HEAD') return '/signin';
  return signInReturningTo(url.pathname + url.search);
}

/** The person behind the request's page cookie, with live rights and the session's CSRF token. */
export async function signedInOf(app: BookingApp, request: Request): Promise<SignedIn | undefined> {
  const token = pageCookies(request, app.publicUrl.get()).read(PAGE_COOKIE);
  const session = token ? await app.apiAccess.session(token) : undefined;
  if (!token || !session) return undefined;
  const { person, signedInAt } = session;
  const workspace = await app.database.reader
    .selectFrom('workspaces')
    .select('name')
    .where('id', '=', person.workspaceId)
    .executeTakeFirst();
  return {
    person,
    workspaceName: workspace?.name ?? person.workspaceId,
    rights: rightsOf(person.role, person.active),
    sessionToken: token,
    signedInAt,
    csrf: csrfFor(token),
  };
}

/** Every page but sign-in: no live session → 303 to the sign-in page, which returns here afterwards. */
export function requireSignIn(app: BookingApp): MiddlewareHandler<PageEnv> {
  return async (c, next) => {
    const who = await signedInOf(app, c.req.raw);
    if (!who) return seeOther(signInFor(c.req.raw));
    c.set('signedIn', who);
    return next();
  };
}

const FLASH_MAX = 300;
const flashMac = (who: SignedIn, message: string) =>
  sha256(`flash:${who.sessionToken}:${message}`).slice(0, 32);

/** A `Set-Cookie` carrying a one-time message for the next page, signed with the session (never a secret). */
export function flashCookie(app: BookingApp, c: PageContext, who: SignedIn, message: string): string {
  const text = message.slice(0, FLASH_MAX);
  const value = `${Buffer.from(text).toString('base64url')}.${flashMac(who, text)}`;
  return pageCookies(c.req.raw, app.publicUrl.get()).set(FLASH_COOKIE, value, 60);
}

/**
 * The flash message the request carries, if it was signed for this session,
 * and the `Set-Cookie` that clears it (so it shows once).
 */
export function takeFlash(
  app: BookingApp,
  c: PageContext,
  who: SignedIn,
): { message: string | undefined; clear: Record<string, string> } {
  const cookies = pageCookies(c.req.raw, app.publicUrl.get());
  const value = cookies.read(FLASH_COOKIE);
  if (value === undefined) return { message: undefined, clear: {} };
  const clear = { 'set-cookie': cookies.clear(FLASH_COOKIE) };
  const [encoded = '', mac = ''] = value.split('.');
  const message = Buffer.from(encoded, 'base64url').toString('utf8');
  return { message: mac === flashMac(who, message) ? message : undefined, clear };
}
