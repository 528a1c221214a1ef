/** The operator pages' session cookie; the REST API and the MCP endpoint never read it. */
export const PAGE_COOKIE = 'booking_page';
/** The pre-session cookie the sign-in form's CSRF token is bound to. */
export const PRE_SESSION_COOKIE = 'booking_presession';
/** A one-time message for the next page (signed with the session). */
export const FLASH_COOKIE = 'booking_flash';

/** A cookie's value from the request, or undefined (the first one when sent twice). */
export function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
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
export function setCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'HttpOnly', 'Path=/', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  parts.push(`Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`);
  return parts.join('; ');
}
