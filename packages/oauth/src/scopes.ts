import { ConfigurationError } from '@gatehousejs/core';

/**
 * The host's scopes-to-rights table: every right is a scope of the same name
 * (`bookings.read`), so a token's scopes are the rights it may use, always
 * cut by the person's live rights (I4). `offline_access` asks for a refresh
 * token and `openid` for OpenID Connect; neither is a right.
 */
export interface OAuthScopes<TRight extends string = string> {
  /** Every right a client may ask for, each a scope of the same name. */
  readonly rights: readonly TRight[];
  /** What each right lets a client do, in the words the consent page shows beside the scope. */
  readonly words: Readonly<Record<TRight, string>>;
  /**
   * The scopes a client starts with: named in the 401 challenge's resource
   * metadata, and asked for when an authorization request names none.
   */
  readonly starting: readonly TRight[];
  /**
   * The toolsets a connection may be limited to, with the words the consent
   * page shows (the credential's `toolset`); the page always offers "all
   * tools its rights allow" first. Default none.
   */
  readonly toolsets?: Readonly<Record<string, string>> | undefined;
}

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The table, checked once: scope-token syntax (RFC 6749 §3.3), no reserved name, words for each right, known starting scopes. */
export function checkedScopes<TRight extends string>(scopes: OAuthScopes<TRight>): OAuthScopes<TRight> {
  const fail = (why: string): never => {
    throw new ConfigurationError(`createAuthorizationServer: scopes ${why}`);
  };
  if (scopes.rights.length === 0) fail('must name at least one right.');
  for (const right of scopes.rights) {
    if (!SCOPE.test(right))
      fail(`must be scope tokens without spaces or quotes; ${JSON.stringify(right)} is not one.`);
    if (right === 'openid' || right === 'offline_access') fail(`must not use the reserved scope ${right}.`);
    if (typeof scopes.words[right] !== 'string' || !scopes.words[right]) fail(`need words for ${right}.`);
  }
  const known = new Set<string>(scopes.rights);
  const unknown = scopes.starting.filter((s) => !known.has(s));
  if (unknown.length > 0) fail(`starting names unknown rights: ${unknown.join(', ')}.`);
  if (scopes.toolsets && '' in scopes.toolsets) fail('toolsets must not name the empty toolset (all tools).');
  return scopes;
}

/** The rights among scope names (`offline_access`, `openid` and unknown names are no rights). */
export function rightsOfScopes<TRight extends string>(
  scopes: OAuthScopes<TRight>,
  names: Iterable<string>,
): TRight[] {
  const known = new Set<string>(scopes.rights);
  return [...new Set(names)].filter((s): s is TRight => known.has(s));
}

/** The table `oauthAuthenticator` takes: each scope grants the right of its name. */
export function scopeRights<TRight extends string>(
  scopes: OAuthScopes<TRight>,
): Readonly<Record<string, readonly TRight[]>> {
  return Object.freeze(Object.fromEntries(scopes.rights.map((right) => [right, [right]])));
}
