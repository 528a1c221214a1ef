import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { type AuthorizationStore, ConfigurationError } from '@gatehousejs/core';

/** A private JSON Web Key as oidc-provider takes it (`kty`, `kid`, the key's members). */
export type PrivateJwk = { readonly kty: string; readonly kid?: string } & Readonly<Record<string, unknown>>;

/** The authorization server's secrets: signing keys (first signs, all verify) and cookie keys (same). */
export interface AuthorizationKeys {
  readonly jwks: { readonly keys: readonly PrivateJwk[] };
  readonly cookieKeys: readonly string[];
}

/** Where the keys come from: configured values (an environment's), when set. */
export interface KeySources {
  /** A JSON Web Key Set of private keys, `{"keys":[…]}`, newest first. */
  readonly jwks?: string | undefined;
  /** Comma-separated secrets of at least 32 characters, newest first. */
  readonly cookieKeys?: string | undefined;
  /**
   * What an error calls each value (the variables they come from, as
   * {@link oauthSettingsFromEnv} sets them); default `jwks` and `cookieKeys`.
   * An error names the source, never the value.
   */
  readonly sourceNames?: { readonly jwks: string; readonly cookieKeys: string } | undefined;
}

const UNSET = 'unset it to have one generated and stored in the database';

function parseJwks(text: string, name: string): AuthorizationKeys['jwks'] {
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
      `${name} must be a JSON Web Key Set of private keys, {"keys":[{"kty":…,"d":…}]}, newest first; ${UNSET}.`,
    );
  }
  return { keys: keys as PrivateJwk[] };
}

function parseCookieKeys(text: string, name: string): string[] {
  const keys = text.split(',').map((k) => k.trim());
  if (keys.length === 0 || keys.some((k) => k.length < 32)) {
    throw new ConfigurationError(
      `${name} must be comma-separated secrets of at least 32 characters each, newest first; ${UNSET}.`,
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
 * that names their source, never the value.
 */
export async function loadAuthorizationKeys(
  store: AuthorizationStore,
  sources: KeySources,
  now: number,
): Promise<AuthorizationKeys> {
  const names = sources.sourceNames ?? { jwks: 'jwks', cookieKeys: 'cookieKeys' };
  const jwks = parseJwks(
    sources.jwks || (await store.keyOf('jwks', () => JSON.stringify({ keys: [newSigningKey()] }), now)),
    sources.jwks ? names.jwks : 'The stored signing key set',
  );
  const cookieKeys = parseCookieKeys(
    sources.cookieKeys ||
      (await store.keyOf('cookie_keys', () => randomBytes(32).toString('base64url'), now)),
    sources.cookieKeys ? names.cookieKeys : 'The stored cookie key',
  );
  return { jwks, cookieKeys };
}
