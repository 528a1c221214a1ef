import { ConfigurationError } from '@gatehousejs/core';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { accessTokenReader, keysUnreachable, providerUrl } from './internal/tokenClaims.js';
import type { VerifiedAccessToken } from './oauth.js';

/** Options of {@link jwtAccessTokens}. */
export interface JwtAccessTokenOptions {
  /** The identity provider's issuer, exactly as its tokens' `iss` says it (`https://id.example.com/`). */
  readonly issuer: string;
  /** This MCP server's resource identifier: a token whose `aud` does not name it is refused (I21). */
  readonly audience: string;
  /**
   * The issuer's signing keys: its JWKS URL (fetched on first use, kept for
   * `jwksMaxAgeMs`, fetched again at once when a token names a key it has
   * not seen: a rotation), or a key set held by the host.
   */
  readonly jwks: URL | string | JSONWebKeySet;
  /**
   * The claim naming the token's tenant (a string) or tenants (an array of
   * strings), such as `org_id`. Without it the token names none: the tenant
   * is the one the request names (URL or header), and the person must work
   * there now (I3).
   */
  readonly tenantClaim?: string | undefined;
  /** Signature algorithms accepted; default RS256, PS256, ES256 and EdDSA (never `none`, never HMAC). */
  readonly algorithms?: readonly string[] | undefined;
  /** Skew allowed on `exp`, `nbf` and `iat`, in seconds; default 30, at most 300. */
  readonly clockToleranceSeconds?: number | undefined;
  /**
   * The header `typ` every token must carry: RFC 9068's `at+jwt` (the
   * default), so an ID token of the same issuer is never taken for an access
   * token. `false` only for an issuer that does not mark its access tokens.
   */
  readonly tokenType?: 'at+jwt' | false | undefined;
  /** How long fetched keys are kept, in milliseconds; default 10 minutes. */
  readonly jwksMaxAgeMs?: number | undefined;
  /** The least time between two fetches of the keys, in milliseconds; default 30 s. */
  readonly jwksCooldownMs?: number | undefined;
  /** How long one fetch of the keys may take, in milliseconds; default 5 s. */
  readonly jwksTimeoutMs?: number | undefined;
  /** The clock the token's times are checked against; default the system time. Tests pin it. */
  readonly clock?: (() => Date) | undefined;
}

const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
const FORBIDDEN_ALGORITHMS = /^(none|HS\d+)$/i;

/** jose's answers that say the token is not good; anything else (the keys out of reach) is an outage. */
const INVALID_TOKEN: readonly (abstract new (...args: never[]) => Error)[] = [
  errors.JWTClaimValidationFailed,
  errors.JWTExpired,
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
];

function configured(options: JwtAccessTokenOptions): Required<
  Pick<JwtAccessTokenOptions, 'issuer' | 'audience'>
> & {
  readonly algorithms: string[];
  readonly tolerance: number;
} {
  const fail = (what: string) => {
    throw new ConfigurationError(`jwtAccessTokens: ${what}`);
  };
  if (typeof options?.issuer !== 'string' || options.issuer === '') fail('issuer is required.');
  if (typeof options.audience !== 'string' || options.audience === '') fail('audience is required.');
  if (options.jwks === undefined) fail('jwks (a URL or a key set) is required.');
  if (
    options.tenantClaim !== undefined &&
    (typeof options.tenantClaim !== 'string' || options.tenantClaim === '')
  )
    fail('tenantClaim must be a claim name.');
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  if (
    algorithms.length === 0 ||
    algorithms.some((a) => typeof a !== 'string' || FORBIDDEN_ALGORITHMS.test(a))
  )
    fail('algorithms must be asymmetric signature algorithms (no none, no HS256).');
  const tolerance = options.clockToleranceSeconds ?? 30;
  if (!Number.isFinite(tolerance) || tolerance < 0 || tolerance > 300)
    fail('clockToleranceSeconds must be between 0 and 300.');
  return { issuer: options.issuer, audience: options.audience, algorithms, tolerance };
}

function keysOf(options: JwtAccessTokenOptions): JWTVerifyGetKey {
  const { jwks } = options;
  if (typeof jwks === 'object' && !(jwks instanceof URL)) {
    if (!Array.isArray(jwks.keys))
      throw new ConfigurationError('jwtAccessTokens: jwks must be a URL or { keys: [...] }.');
    return createLocalJWKSet(jwks);
  }
  const url = providerUrl(jwks, 'jwtAccessTokens: the JWKS URL');
  return createRemoteJWKSet(url, {
    cacheMaxAge: options.jwksMaxAgeMs ?? 600_000,
    cooldownDuration: options.jwksCooldownMs ?? 30_000,
    timeoutDuration: options.jwksTimeoutMs ?? 5_000,
  });
}

/**
 * A verifier for the JWT access tokens of an identity provider the team
 * already runs (RFC 9068), for {@link oauthAuthenticator}'s `verify`: the
 * signature from the issuer's JWKS (cached, refetched on an unknown key),
 * `iss` exactly, `aud` naming this server, `exp`/`nbf`/`iat` within a small
 * skew, the `at+jwt` type, a subject and a client. A token that fails any of
 * these is `undefined` (401); keys out of reach throw an outage (503), so a
 * provider's hiccup never reads as a bad token. The connection id is
 * stable across refreshes: one per issuer, subject and client, never the `jti`.
 *
 * @example
 * oauthAuthenticator({
 *   verify: jwtAccessTokens({ issuer, audience: MCP_URL, jwks: `${issuer}.well-known/jwks.json`, tenantClaim: 'org_id' }),
 *   audience: MCP_URL, people, scopes: { 'tickets:read': ['tickets.read'] },
 * })
 */
export function jwtAccessTokens(
  options: JwtAccessTokenOptions,
): (token: string) => Promise<VerifiedAccessToken | undefined> {
  const { issuer, audience, algorithms, tolerance } = configured(options);
  const keys = keysOf(options);
  const tokenType = options.tokenType ?? 'at+jwt';
  const clock = options.clock ?? (() => new Date());
  const read = accessTokenReader(issuer, options.tenantClaim);
  return async function verifyJwtAccessToken(token) {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms,
        clockTolerance: tolerance,
        currentDate: clock(),
        requiredClaims: ['exp', 'sub'],
        ...(tokenType ? { typ: tokenType } : {}),
      }));
    } catch (error) {
      if (INVALID_TOKEN.some((kind) => error instanceof kind)) return undefined;
      throw keysUnreachable("The identity provider's signing keys could not be fetched.", error);
    }
    return read(payload, (payload.exp ?? 0) * 1000);
  };
}
