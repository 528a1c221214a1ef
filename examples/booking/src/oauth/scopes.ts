import { RIGHTS, type Right } from '../domain/model.js';

/**
 * The scopes a client may ask for: one per right, named like it
 * (`bookings.read`), so a token's scopes are the rights it may use, always
 * cut by the person's live rights. `offline_access` asks for a refresh token.
 */
export const SCOPE_RIGHTS: Readonly<Record<string, readonly Right[]>> = Object.freeze(
  Object.fromEntries(RIGHTS.map((right) => [right, [right]])),
);

/** Every scope the authorization server accepts. */
export const SUPPORTED_SCOPES: readonly string[] = ['offline_access', ...RIGHTS];

/** The toolsets a connection may be limited to (empty: every tool its rights allow). */
export const TOOLSETS = ['compact'] as const;

/** The rights among scope names (`offline_access` and unknown names are no rights). */
export function rightsOfScopes(scopes: Iterable<string>): Right[] {
  const known = new Set<string>(RIGHTS);
  return [...new Set(scopes)].filter((s): s is Right => known.has(s));
}
