import { createHash } from 'node:crypto';
import { ConfigurationError, ToolError } from '@gatehousejs/core';
import { httpsOrLocal } from '@gatehousejs/core/internal';
import type { VerifiedAccessToken } from '../oauth.js';

/** Claims as an identity provider sends them. */
type Claims = Readonly<Record<string, unknown>>;

/** The token's tenants from `claim`: a string or a non-empty array of strings, else `undefined`. */
function tenantsIn(claims: Claims, claim: string): string[] | undefined {
  const value = claims[claim];
  if (typeof value === 'string' && value !== '') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== ''))
    return value as string[];
  return undefined;
}

/** Scopes from RFC 9068's `scope` (space-separated) or the `scp` array some providers send. */
function scopesIn(claims: Claims): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(claims.scp)) return claims.scp.filter((s): s is string => typeof s === 'string');
  return [];
}

/** The client the token was issued to: `client_id`, else `azp`; empty when neither. */
function clientIn(claims: Claims): string {
  if (typeof claims.client_id === 'string') return claims.client_id;
  return typeof claims.azp === 'string' ? claims.azp : '';
}

/**
 * One id per person and client at one issuer, the same across every token
 * and refresh of the grant (never the token's `jti`, or replay claims and
 * confirm tokens would break at each refresh).
 */
function grantIdOf(issuer: string, subject: string, clientId: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([issuer, subject, clientId]))
    .digest('base64url');
  return `oidc_${digest.slice(0, 32)}`;
}

/** The issuer as a person reads it in a client label: its host when it is a URL. */
function issuerLabel(issuer: string): string {
  return URL.canParse(issuer) ? new URL(issuer).host || issuer : issuer;
}

/** The identity provider out of reach: an outage (503 and Retry-After), never a bad token (401). */
export function keysUnreachable(message: string, cause: unknown): ToolError {
  return new ToolError({ code: 'store_unavailable', message, fix: 'Retry shortly.' }, { cause });
}

/** An identity provider's URL: https, or http on loopback (tests); else a configuration error naming `what`. */
export function providerUrl(given: URL | string, what: string): URL {
  const url = URL.canParse(given) ? new URL(given) : undefined;
  if (!url || !httpsOrLocal(url))
    throw new ConfigurationError(`${what} must be an https URL (http only on loopback, for tests).`);
  return url;
}

/** The audiences a token names (`aud`, a string or a list). */
export function audiencesIn(claims: Claims): string[] {
  if (typeof claims.aud === 'string') return [claims.aud];
  return Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : [];
}

/**
 * What checked claims (signature or introspection, issuer, audience and
 * expiry already settled) tell `oauthAuthenticator`, for one issuer and
 * tenant claim: `undefined` when they lack a subject, a client, or the
 * tenant claim the host named.
 */
export function accessTokenReader(issuer: string, tenantClaim: string | undefined) {
  const label = issuerLabel(issuer);
  return (claims: Claims, expiresAt: number): VerifiedAccessToken | undefined => {
    const subject = typeof claims.sub === 'string' ? claims.sub : '';
    const client = clientIn(claims);
    if (subject === '' || client === '') return undefined;
    const tenantIds = tenantClaim ? tenantsIn(claims, tenantClaim) : [];
    if (!tenantIds) return undefined;
    return {
      audience: audiencesIn(claims),
      subject,
      tenantIds,
      ...(tenantClaim ? {} : { tenantFromRequest: true }),
      scopes: scopesIn(claims),
      expiresAt,
      grantId: grantIdOf(issuer, subject, client),
      clientLabel: `${client} (${label})`,
    };
  };
}
