/**
 * The console's cookies: `__Host-` prefixed where served Secure (a browser
 * then takes them only from a secure origin, for the whole host and `Path=/`,
 * so no sibling subdomain and no plain-http page of the host can set or
 * shadow them), the plain name on http (development on a loopback address).
 */

/** The name a cookie travels under. */
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
 * A cookie's value, or undefined. Undefined too when it is sent twice: a
 * second cookie of a name is planted (a page on another port of the host, or
 * on a path under this one), and which one is real cannot be told.
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

/** The console's cookies of one request, read and written under the name its Secure-ness gives them. */
export interface Cookies {
  readonly secure: boolean;
  /** A cookie's value (by base name), or undefined when absent or sent twice. */
  read(base: string): string | undefined;
  /** A `Set-Cookie` line for a cookie (by base name). */
  set(base: string, value: string, maxAgeSeconds: number): string;
  /** A `Set-Cookie` line deleting a cookie (by base name). */
  clear(base: string): string;
}

/** {@link Cookies} for a request served under `publicOrigin`. */
export function cookiesOf(request: Request, publicOrigin: string): Cookies {
  const secure = secureRequest(request, publicOrigin);
  return {
    secure,
    read: (base) => readCookie(request, cookieName(base, secure)),
    set: (base, value, maxAge) => setCookie(cookieName(base, secure), value, maxAge, secure),
    clear: (base) => setCookie(cookieName(base, secure), '', 0, secure),
  };
}

/** The names among `names` (full names, as sent) that the request carries more than once. */
export function conflictingCookies(request: Request, names: readonly string[]): string[] {
  return names.filter((name) => cookieValues(request, name).length > 1);
}

/**
 * `Set-Cookie` lines deleting `name` on the request path and each of its
 * parents (a planted copy's `Path` is one of them), so a browser left with a
 * planted cookie is cleaned by the refusal; the `__Host-` form lives on `/` only.
 */
export function clearEverywhere(name: string, pathname: string, secure: boolean): string[] {
  if (name.startsWith('__Host-')) return [setCookie(name, '', 0, true)];
  const paths = ['/'];
  const segments = pathname.split('/').filter(Boolean).slice(0, 8);
  for (let i = 1; i <= segments.length; i++) paths.push(`/${segments.slice(0, i).join('/')}`);
  return paths.map((path) => setCookie(name, '', 0, secure, path));
}
