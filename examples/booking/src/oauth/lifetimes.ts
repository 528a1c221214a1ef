/** Access tokens live ten minutes; a client refreshes, and each refresh is checked again. */
export const ACCESS_TOKEN_SECONDS = 600;

/** A grant (and its Gatehouse credential and refresh tokens) lasts 30 days unless revoked earlier. */
export const GRANT_SECONDS = 30 * 24 * 3_600;

/** An authorization request waits an hour for the person's answer. */
export const INTERACTION_SECONDS = 3_600;
