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

/** What each right lets a client do, in the words the consent page shows (the scope id beside them). */
export const RIGHT_WORDS: Readonly<Record<Right, string>> = Object.freeze({
  'customers.read': 'See customers: names, contact details and notes',
  'bookings.read': 'See bookings and technicians’ schedules',
  'bookings.write': 'Create, move and change bookings',
  'bookings.delete': 'Delete bookings (a person approves each deletion)',
  'customers.notify': 'Send messages to customers',
  'technicians.page': 'Page technicians on call (a person approves each page)',
  'alerts.manage': 'Mute the product’s alerts for a while',
});

/** What a client sees with each toolset, in words (the empty toolset: every tool its rights allow). */
export const TOOLSET_WORDS: Readonly<Record<(typeof TOOLSETS)[number] | '', string>> = Object.freeze({
  '': 'All tools its rights allow',
  compact:
    'Compact: finding and reading customers and bookings, creating and changing bookings, recent changes (fewer tools, for small models)',
});
