import {
  type AuthDecision,
  type Authenticate,
  ConfigurationError,
  type Connection,
  type ConnectionScope,
} from '@gatehousejs/core';
import { chooseTenant } from './credentials.js';
import { connectionFor } from './internal/connectionFor.js';
import type { PeopleSource } from './people.js';

/** What the host's verifier learned from a valid OAuth access token. */
export interface VerifiedAccessToken {
  /** Audiences (`aud`) the token was issued for. */
  readonly audience: string | readonly string[];
  /** The person (`sub`). */
  readonly subject: string;
  /** The tenants the token names (I3); the request's tenant must be one of them. */
  readonly tenantIds: readonly string[];
  /**
   * The token names no tenant (an identity provider that knows none): the
   * tenant is the one the request names (URL or header), and the person must
   * work there now. A request naming none is refused.
   */
  readonly tenantFromRequest?: boolean | undefined;
  /** Rights the token grants by name; with `scopes` declared, its scopes' rights are added. */
  readonly rights?: readonly string[];
  /** The token's scopes (`scope`, split on spaces); they grant rights through the `scopes` option. */
  readonly scopes?: readonly string[];
  /** Expiry, epoch milliseconds. */
  readonly expiresAt: number;
  /** A stable id of the grant, used as the connection id. */
  readonly grantId: string;
  readonly clientLabel: string;
}

/** Scope names and the rights each grants, e.g. `{ 'bookings:read': ['bookings.read', 'customers.read'] }`. */
export type ScopeRights<TRight extends string> = Readonly<Record<string, readonly TRight[]>>;

/** Options of {@link oauthAuthenticator}. */
export interface OAuthOptions<TRight extends string> {
  /** Checks signature and issuer; returns the claims, or undefined for an invalid token. */
  readonly verify: (token: string) => Promise<VerifiedAccessToken | undefined>;
  /** This server's resource identifier: tokens for any other audience are refused (I21). */
  readonly audience: string;
  readonly people: PeopleSource<TRight>;
  /**
   * Scopes as named sets of rights. A token's rights are then its scopes'
   * rights (unknown scope names grant nothing), and connections carry
   * `scope`: a tool within the person's live rights but outside the token's
   * scopes is listed, and calling it answers HTTP 403 `insufficient_scope`
   * naming the scopes to ask for (I7's step-up exception).
   */
  readonly scopes?: ScopeRights<TRight>;
  /** The clock that expiry is checked against; default the system time. Tests pin it. */
  readonly clock?: () => Date;
}

/** RFC 6749 §3.3 scope-token characters: printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function checkScopes<TRight extends string>(scopes: unknown): ScopeRights<TRight> | undefined {
  if (scopes === undefined) return undefined;
  const entries = typeof scopes === 'object' && scopes !== null ? Object.entries(scopes) : [];
  const valid =
    entries.length > 0 &&
    entries.every(
      ([name, rights]) =>
        SCOPE_TOKEN.test(name) &&
        Array.isArray(rights) &&
        rights.length > 0 &&
        rights.every((r) => typeof r === 'string'),
    );
  if (!valid) {
    throw new ConfigurationError(
      "oauthAuthenticator: scopes must map scope names (no spaces or quotes) to non-empty lists of rights, e.g. { 'bookings:read': ['bookings.read'] }.",
    );
  }
  return Object.freeze(Object.fromEntries(entries)) as ScopeRights<TRight>;
}

/**
 * The scope names that together grant `rights`: greedily the declared scope
 * granting most of the rights still uncovered (declaration order breaks
 * ties); empty when some right is in no declared scope.
 */
function coverOf<TRight extends string>(scopes: ScopeRights<TRight>, rights: readonly TRight[]): string[] {
  const uncovered = new Set(rights);
  const chosen: string[] = [];
  while (uncovered.size > 0) {
    let best: { name: string; gain: number } | undefined;
    for (const [name, granted] of Object.entries(scopes)) {
      const gain = granted.filter((r) => uncovered.has(r)).length;
      if (gain > (best?.gain ?? 0)) best = { name, gain };
    }
    if (!best) return [];
    chosen.push(best.name);
    for (const r of scopes[best.name] ?? []) uncovered.delete(r);
  }
  return chosen;
}

/** The connection's scope facts: listed = the person's live rights that some declared scope grants. */
function scopeOf<TRight extends string>(
  scopes: ScopeRights<TRight>,
  liveRights: ReadonlySet<string>,
): ConnectionScope<TRight> {
  const declared = new Set(Object.values(scopes).flat());
  const listed = new Set([...declared].filter((r) => liveRights.has(r)));
  return Object.freeze({ listed, scopesFor: (rights: readonly TRight[]) => coverOf(scopes, rights) });
}

/** The rights a token grants: its named rights plus, with scopes declared, its known scopes' rights. */
function tokenRights<TRight extends string>(
  claims: VerifiedAccessToken,
  scopes: ScopeRights<TRight> | undefined,
): string[] {
  const fromScopes = scopes
    ? (claims.scopes ?? []).flatMap((s) => (Object.hasOwn(scopes, s) ? (scopes[s] ?? []) : []))
    : [];
  return [...new Set([...(claims.rights ?? []), ...fromScopes])];
}

/**
 * An authenticator for OAuth access tokens (I21): only tokens issued for this
 * server's audience pass; invalid or expired ones answer 401. The token is
 * never passed on to another service. Rights are still cut live (I4): the
 * connection's rights are the token's rights ∩ the person's current rights.
 * With `scopes`, the connection also carries `scope` for step-up (I7).
 */
export function oauthAuthenticator<TRight extends string>(
  options: OAuthOptions<TRight>,
): Authenticate<TRight> {
  if (typeof options.verify !== 'function' || !options.audience) {
    throw new ConfigurationError('oauthAuthenticator: verify and audience are required.');
  }
  const scopes = checkScopes<TRight>(options.scopes);
  const clock = options.clock ?? (() => new Date());
  const refuse = (status: 401 | 403, reason: string): AuthDecision<TRight> => ({ ok: false, status, reason });
  return async function authenticateOAuth({ token, transportTenant }) {
    const claims = await options.verify(token);
    if (!claims) return refuse(401, 'The access token is not valid.');
    const audiences = typeof claims.audience === 'string' ? [claims.audience] : claims.audience;
    if (!audiences.includes(options.audience))
      return refuse(401, 'The access token was issued for another audience.');
    if (claims.expiresAt <= clock().getTime()) return refuse(401, 'The access token expired.');
    const tenant = claims.tenantFromRequest
      ? transportTenant === undefined
        ? ({ ok: false, reason: 'This token names no tenant; name one in the URL or header.' } as const)
        : ({ ok: true, tenantId: transportTenant } as const)
      : chooseTenant(claims.tenantIds, transportTenant);
    if (!tenant.ok) return refuse(403, tenant.reason);
    const standing = await options.people.current(tenant.tenantId, claims.subject);
    if (!standing && claims.tenantFromRequest)
      return refuse(403, 'The person behind this token does not work in the tenant named in the request.');
    if (!standing?.active) return refuse(401, 'The person behind this token is no longer active here.');
    const live = new Set<string>(standing.rights);
    const decision = connectionFor<TRight>(
      {
        id: claims.grantId,
        creatorId: claims.subject,
        rights: tokenRights(claims, scopes),
        clientLabel: claims.clientLabel,
      },
      tenant.tenantId,
      live,
    );
    if (!decision.ok || !scopes) return decision;
    const connection: Connection<TRight> = { ...decision.connection, scope: scopeOf(scopes, live) };
    return { ok: true, connection };
  };
}
