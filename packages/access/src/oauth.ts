import { type AuthDecision, type Authenticate, ConfigurationError } from '@gatehousejs/core';
import { chooseTenant } from './credentials.js';
import { connectionFor } from './internal/connectionFor.js';
import type { PeopleSource } from './people.js';

/** What the host's verifier learned from a valid OAuth access token. */
export interface VerifiedAccessToken {
  /** Audiences (`aud`) the token was issued for. */
  readonly audience: string | readonly string[];
  /** The person (`sub`). */
  readonly subject: string;
  readonly tenantIds: readonly string[];
  readonly rights: readonly string[];
  /** Expiry, epoch milliseconds. */
  readonly expiresAt: number;
  /** A stable id of the grant, used as the connection id. */
  readonly grantId: string;
  readonly clientLabel: string;
}

/** Options of {@link oauthAuthenticator}. */
export interface OAuthOptions<TRight extends string> {
  /** Checks signature and issuer; returns the claims, or undefined for an invalid token. */
  readonly verify: (token: string) => Promise<VerifiedAccessToken | undefined>;
  /** This server's resource identifier: tokens for any other audience are refused (I21). */
  readonly audience: string;
  readonly people: PeopleSource<TRight>;
  /** The clock that expiry is checked against; default the system time. Tests pin it. */
  readonly clock?: () => Date;
}

/**
 * An authenticator for OAuth access tokens (I21): only tokens issued for this
 * server's audience pass; invalid or expired ones answer 401. The token is
 * never passed on to another service. Rights are still cut live (I4).
 */
export function oauthAuthenticator<TRight extends string>(
  options: OAuthOptions<TRight>,
): Authenticate<TRight> {
  if (typeof options.verify !== 'function' || !options.audience) {
    throw new ConfigurationError('oauthAuthenticator: verify and audience are required.');
  }
  const clock = options.clock ?? (() => new Date());
  const refuse = (status: 401 | 403, reason: string): AuthDecision<TRight> => ({ ok: false, status, reason });
  return async function authenticateOAuth({ token, transportTenant }) {
    const claims = await options.verify(token);
    if (!claims) return refuse(401, 'The access token is not valid.');
    const audiences = typeof claims.audience === 'string' ? [claims.audience] : claims.audience;
    if (!audiences.includes(options.audience))
      return refuse(401, 'The access token was issued for another audience.');
    if (claims.expiresAt <= clock().getTime()) return refuse(401, 'The access token expired.');
    const tenant = chooseTenant(claims.tenantIds, transportTenant);
    if (!tenant.ok) return refuse(403, tenant.reason);
    const standing = await options.people.current(tenant.tenantId, claims.subject);
    if (!standing?.active) return refuse(401, 'The person behind this token is no longer active here.');
    return connectionFor<TRight>(
      {
        id: claims.grantId,
        creatorId: claims.subject,
        rights: claims.rights,
        clientLabel: claims.clientLabel,
      },
      tenant.tenantId,
      standing.rights,
    );
  };
}
