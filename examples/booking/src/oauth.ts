import { ConfigurationError } from '@gatehousejs/core';
import { type OAuthScopes, type OAuthSettings, oauthSettingsFromEnv } from '@gatehousejs/oauth';
import { UsageError } from './config.js';
import { RIGHTS, type Right } from './domain/model.js';

/**
 * The booking product's scopes: one per right, named like it
 * (`bookings.read`); a client starts with reading bookings and customers,
 * and may be limited to the compact toolset.
 */
export const BOOKING_SCOPES: OAuthScopes<Right> = Object.freeze<OAuthScopes<Right>>({
  rights: RIGHTS,
  starting: ['bookings.read', 'customers.read'],
  words: {
    'customers.read': 'See customers: names, contact details and notes',
    'bookings.read': 'See bookings and technicians’ schedules',
    'bookings.write': 'Create, move and change bookings',
    'bookings.delete': 'Delete bookings (a person approves each deletion)',
    'customers.notify': 'Send messages to customers',
    'technicians.page': 'Page technicians on call (a person approves each page)',
    'alerts.manage': 'Mute the product’s alerts for a while',
  },
  toolsets: {
    compact:
      'Compact: finding and reading customers and bookings, creating and changing bookings, recent changes (fewer tools, for small models)',
  },
});

/**
 * The authorization server's settings from `BOOKING_OAUTH_JWKS`,
 * `BOOKING_OAUTH_COOKIE_KEYS`, `BOOKING_OAUTH_DYNAMIC_REGISTRATION=1`,
 * `BOOKING_OAUTH_PRIVATE_METADATA_FETCH=1` and `BOOKING_OAUTH_METADATA_HOSTS`;
 * a bad value is a {@link UsageError} naming the variable (exit 2 at startup).
 */
export function bookingOAuthSettings(env: NodeJS.ProcessEnv): OAuthSettings {
  try {
    return oauthSettingsFromEnv(env, 'BOOKING_OAUTH_');
  } catch (error) {
    if (error instanceof ConfigurationError) throw new UsageError(error.message);
    throw error;
  }
}
