import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { type AuthorizationStore, ConfigurationError } from '@gatehousejs/core';

/** A private JSON Web Key as oidc-provider takes it (`kty`, `kid`, the key's members). */
export type PrivateJwk = { readonly kty: string; readonly kid?: string } & Readonly<Record<string, unknown>>;

/** The authorization server's secrets: signing keys (first signs, all verify) and cookie keys (same). */
export interface AuthorizationKeys {
  readonly jwks: { readonly keys: readonly PrivateJwk[] };
  readonly cookieKeys: readonly string[];
}

/** Where the keys come from: the environment's values, when set. */
export interface KeySources {
  /** `BOOKING_OAUTH_JWKS`: a JSON Web Key Set of private keys, `{"keys":[…]}`, newest first. */
  readonly jwks?: string | undefined;
  /** `BOOKING_OAUTH_COOKIE_KEYS`: comma-separated secrets of at least 32 characters, newest first. */
  readonly cookieKeys?: string | undefined;
}

function parseJwks(text: string): AuthorizationKeys['jwks'] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const keys = (parsed as { keys?: unknown } | undefined)?.keys;
  const valid =
    Array.isArray(keys) &&
    keys.length > 0 &&
    keys.every(
      (k) =>
        typeof k === 'object' && k !== null && typeof (k as { kty?: unknown }).kty === 'string' && 'd' in k,
    );
  if (!valid) {
    throw new ConfigurationError(
      'BOOKING_OAUTH_JWKS must be a JSON Web Key Set of private keys, {"keys":[{"kty":…,"d":…}]}, newest first; unset it to have one generated and stored in the database.',
    );
  }
  return { keys: keys as PrivateJwk[] };
}

function parseCookieKeys(text: string): string[] {
  const keys = text.split(',').map((k) => k.trim());
  if (keys.length === 0 || keys.some((k) => k.length < 32)) {
    throw new ConfigurationError(
      'BOOKING_OAUTH_COOKIE_KEYS must be comma-separated secrets of at least 32 characters each, newest first; unset it to have one generated and stored in the database.',
    );
  }
  return keys;
}

function newSigningKey(): PrivateJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kty: 'EC', kid: randomUUID(), alg: 'ES256', use: 'sig' };
}

/**
 * The signing and cookie keys: from the environment when set (rotate by
 * putting the new key first and keeping the old ones until their tokens and
 * cookies expired), otherwise generated on first start and stored in the
 * database, shared by every replica. Bad values throw a configuration error
 * that names the variable, never its value.
 */
export async function loadAuthorizationKeys(
  store: AuthorizationStore,
  sources: KeySources,
  now: number,
): Promise<AuthorizationKeys> {
  const jwks = sources.jwks
    ? parseJwks(sources.jwks)
    : parseJwks(await store.keyOf('jwks', () => JSON.stringify({ keys: [newSigningKey()] }), now));
  const cookieKeys = sources.cookieKeys
    ? parseCookieKeys(sources.cookieKeys)
    : parseCookieKeys(await store.keyOf('cookie_keys', () => randomBytes(32).toString('base64url'), now));
  return { jwks, cookieKeys };
}
