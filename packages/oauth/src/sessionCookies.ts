/**
 * The authorization server's own session cookies (oidc-provider's
 * `_session`, its signature and legacy forms). The product's sign-in is the
 * only session: these never reach the provider and are never set.
 */
export const PROVIDER_SESSION_COOKIES: readonly string[] = Object.freeze([
  '_session',
  '_session.sig',
  '_session.legacy',
  '_session.legacy.sig',
]);

const PROVIDER_SESSION = new Set(PROVIDER_SESSION_COOKIES);
const nameOf = (pair: string): string => pair.slice(0, Math.max(0, pair.indexOf('='))).trim();

/**
 * The request without the provider's session cookies: every authorization
 * request then starts without a session (`login` prompt), so it always goes
 * to the consent page, where the product's session says who is signed in,
 * and a person who signed out, or another person signed in since, is never
 * answered with the previous person's code. The same request when it
 * carries none.
 */
export function withoutProviderSession(request: Request): Request {
  const cookie = request.headers.get('cookie');
  if (!cookie) return request;
  const kept = cookie.split(';').filter((pair) => !PROVIDER_SESSION.has(nameOf(pair)));
  if (kept.length === cookie.split(';').length) return request;
  const headers = new Headers(request.headers);
  if (kept.length > 0) headers.set('cookie', kept.join(';'));
  else headers.delete('cookie');
  return new Request(request.url, {
    method: request.method,
    headers,
    body: request.body,
    duplex: 'half',
  } as RequestInit);
}

/** The response without `Set-Cookie` lines for the provider's session cookies (the same response when it sets none). */
export function withoutProviderSessionCookies(response: Response): Response {
  const lines = response.headers.getSetCookie();
  const kept = lines.filter((line) => !PROVIDER_SESSION.has(nameOf(line.split(';')[0] ?? '')));
  if (kept.length === lines.length) return response;
  const headers = new Headers(response.headers);
  headers.delete('set-cookie');
  for (const line of kept) headers.append('set-cookie', line);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
