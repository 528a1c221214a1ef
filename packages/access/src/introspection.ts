import { ConfigurationError } from '@gatehousejs/core';
import { accessTokenReader, audiencesIn, keysUnreachable, providerUrl } from './internal/tokenClaims.js';
import type { VerifiedAccessToken } from './oauth.js';

/** Options of {@link introspectedAccessTokens}. */
export interface IntrospectionOptions {
  /** The identity provider's introspection endpoint (RFC 7662), https (http only on loopback, for tests). */
  readonly endpoint: URL | string;
  /** This server's client id and secret at the provider, sent as HTTP Basic credentials. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The issuer: when the answer names one (`iss`) it must be this; it also scopes the grant id. */
  readonly issuer: string;
  /** This MCP server's resource identifier: the answer's `aud` must name it (I21); an answer without `aud` is refused. */
  readonly audience: string;
  /** The claim naming the token's tenant or tenants; without it, the request's tenant (see `jwtAccessTokens`). */
  readonly tenantClaim?: string | undefined;
  /** How long one introspection may take, in milliseconds; default 5 s. */
  readonly timeoutMs?: number | undefined;
  /** The clock expiry is checked against; default the system time. */
  readonly clock?: (() => Date) | undefined;
  /** The fetch used to reach the endpoint; default the global one. */
  readonly fetch?: typeof fetch | undefined;
}

/** RFC 7662 `token_type` values that are access tokens; a refresh token introspected active is still refused. */
const ACCESS_TOKEN_TYPES = new Set(['bearer', 'access_token', 'dpop']);

/**
 * A verifier for opaque access tokens, for {@link oauthAuthenticator}'s
 * `verify`: each token is sent to the provider's introspection endpoint
 * (RFC 7662) on every request, so a revoked token stops at once. An answer
 * that is not `active`, not an access token, of another issuer or audience,
 * expired, or without a subject and client is `undefined` (401), as is a 400
 * (the provider refusing the token); an endpoint out of reach or answering
 * anything else but 200 is an outage (503).
 */
export function introspectedAccessTokens(
  options: IntrospectionOptions,
): (token: string) => Promise<VerifiedAccessToken | undefined> {
  const endpoint = providerUrl(options.endpoint, 'introspectedAccessTokens: endpoint');
  for (const name of ['clientId', 'clientSecret', 'issuer', 'audience'] as const) {
    if (typeof options[name] !== 'string' || options[name] === '')
      throw new ConfigurationError(`introspectedAccessTokens: ${name} is required.`);
  }
  const basic = Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
  ).toString('base64');
  const send = options.fetch ?? fetch;
  const clock = options.clock ?? (() => new Date());
  const read = accessTokenReader(options.issuer, options.tenantClaim);
  const timeoutMs = options.timeoutMs ?? 5_000;

  async function introspect(token: string): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await send(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw keysUnreachable('The identity provider could not be reached to check the token.', error);
    }
    // 400 is the provider refusing this token (a JWT it will not introspect, a malformed one): not valid here
    if (response.status === 400) return { active: false };
    const body: unknown = response.ok ? await response.json().catch(() => undefined) : undefined;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw keysUnreachable(
        `The identity provider answered the token check with HTTP ${response.status}.`,
        undefined,
      );
    return body as Record<string, unknown>;
  }

  return async function verifyIntrospected(token) {
    const claims = await introspect(token);
    if (claims.active !== true) return undefined;
    if (typeof claims.token_type === 'string' && !ACCESS_TOKEN_TYPES.has(claims.token_type.toLowerCase()))
      return undefined;
    if (claims.iss !== undefined && claims.iss !== options.issuer) return undefined;
    if (!audiencesIn(claims).includes(options.audience)) return undefined;
    const expiresAt = typeof claims.exp === 'number' ? claims.exp * 1000 : 0;
    if (expiresAt <= clock().getTime()) return undefined;
    return read(claims, expiresAt);
  };
}
