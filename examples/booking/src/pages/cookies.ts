/** The operator pages' session cookie; the REST API and the MCP endpoint never read it. */
export const PAGE_COOKIE = 'booking_page';
/** The pre-session cookie the sign-in form's CSRF token is bound to. */
export const PRE_SESSION_COOKIE = 'booking_presession';
/** A one-time message for the next page (signed with the session). */
export const FLASH_COOKIE = 'booking_flash';
/** Where a sign-in started from a page (a consent, an approval link) returns, whichever way the person signs in. */
export const RETURN_COOKIE = 'booking_return';
/** The authorization server's cookie naming the interaction this browser started (set by the provider). */
export const INTERACTION_COOKIE = '_interaction';

/** The cookies the pages set, by their base name. */
export const PAGE_COOKIES = [PAGE_COOKIE, PRE_SESSION_COOKIE, FLASH_COOKIE, RETURN_COOKIE] as const;

/**
 * The name a page cookie travels under: `__Host-` and its base name where
 * served Secure, so a browser takes it only from a secure origin, for the
 * whole host and `Path=/` (no sibling subdomain and no plain-http page of
 * the host can set or shadow it); the base name on plain http (development
 * on a loopback address), where no prefix is accepted.
 */
export function cookieName(base: string, secure: boolean): string {
  return secure ? `__Host-${base}` : base;
}

/** Every value the request carries for a cookie name, in the order sent. */
export function cookieValues(request: Request, name: string): string[] {
  const values: string[] = [];
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim() !== name) continue;
    try {
      values.push(decodeURIComponent(part.slice(at + 1).trim()));
    } catch {
      values.push('');
    }
  }
  return values;
}

/**
 * A cookie's value from the request, or undefined. Undefined too when it is
 * sent twice: a second cookie of a name is planted (a page on another port
 * of the host, or on a path under this one), and which of the two is the
 * real one cannot be told; {@link conflictingCookies} refuses such requests
 * before any page reads them.
 */
export function readCookie(request: Request, name: string): string | undefined {
  const values = cookieValues(request, name);
  return values.length === 1 ? values[0] : undefined;
}

/** Whether cookies must carry `Secure`: the request came over TLS, or the public origin is https. */
export function secureRequest(request: Request, publicOrigin: string): boolean {
  return new URL(request.url).protocol === 'https:' || publicOrigin.startsWith('https:');
}

/**
 * A `Set-Cookie` value: `HttpOnly; Path=/; SameSite=Lax`, `Secure` when
 * asked, `Max-Age` (0 deletes it). Lax lets a link from elsewhere land
 * signed in on a GET, while a cross-site POST carries no cookie.
 */
export function setCookie(
  name: string,
  value: string,
  maxAgeSeconds: number,
  secure: boolean,
  path = '/',
): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'HttpOnly', `Path=${path}`, 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  parts.push(`Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`);
  return parts.join('; ');
}

/** The page cookies of one request: read and written under the name its Secure-ness gives them. */
export interface PageCookies {
  /** Whether the cookies carry `Secure` (and the `__Host-` prefix). */
  readonly secure: boolean;
  /** The value of a page cookie (by base name), or undefined when absent or sent twice. */
  read(base: string): string | undefined;
  /** A `Set-Cookie` for a page cookie (by base name). */
  set(base: string, value: string, maxAgeSeconds: number): string;
  /** A `Set-Cookie` deleting a page cookie (by base name). */
  clear(base: string): string;
}

/** {@link PageCookies} for a request served under `publicOrigin`. */
export function pageCookies(request: Request, publicOrigin: string): PageCookies {
  const secure = secureRequest(request, publicOrigin);
  return {
    secure,
    read: (base) => readCookie(request, cookieName(base, secure)),
    set: (base, value, maxAge) => setCookie(cookieName(base, secure), value, maxAge, secure),
    clear: (base) => setCookie(cookieName(base, secure), '', 0, secure),
  };
}

/**
 * The cookie names a request carries more than once among the pages' own
 * (under the name its Secure-ness gives them) and the authorization
 * server's interaction cookie. Browsers send every cookie whose host and
 * path match, whichever port set it, so a page on another port of the host
 * can add `booking_page=<its session>; Path=/approvals` beside the real one:
 * a request like that is refused rather than read either way.
 */
export function conflictingCookies(request: Request, secure: boolean): string[] {
  const names = [...PAGE_COOKIES.map((base) => cookieName(base, secure)), INTERACTION_COOKIE];
  return names.filter((name) => cookieValues(request, name).length > 1);
}

/**
 * `Set-Cookie` lines deleting `name` on the request path and each of its
 * parents (a planted copy's `Path` is one of them), so a browser left with a
 * planted cookie is cleaned by the refusal; the `__Host-` form can only
 * live on `/`.
 */
export function clearEverywhere(name: string, pathname: string, secure: boolean): string[] {
  if (name.startsWith('__Host-')) return [setCookie(name, '', 0, true)];
  const paths = ['/'];
  const segments = pathname.split('/').filter(Boolean).slice(0, 8);
  for (let i = 1; i <= segments.length; i++) paths.push(`/${segments.slice(0, i).join('/')}`);
  return paths.map((path) => setCookie(name, '', 0, secure, path));
}
