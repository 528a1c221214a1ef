/** How long what the authorization server issues lives, in seconds. */
export interface OAuthLifetimes {
  /** An access token; a client refreshes, and each refresh is checked again. Default 600 (ten minutes). */
  readonly accessTokenSeconds: number;
  /** A grant (its Gatehouse credential and refresh tokens), unless revoked earlier. Default 30 days. */
  readonly grantSeconds: number;
  /** How long an authorization request waits for the person's answer. Default 3,600 (an hour). */
  readonly interactionSeconds: number;
}

export const DEFAULT_LIFETIMES: OAuthLifetimes = Object.freeze({
  accessTokenSeconds: 600,
  grantSeconds: 30 * 24 * 3_600,
  interactionSeconds: 3_600,
});
