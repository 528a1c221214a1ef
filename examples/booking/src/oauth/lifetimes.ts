/** Access tokens live ten minutes; a client refreshes, and each refresh is checked again. */
export const ACCESS_TOKEN_SECONDS = 600;

/** A grant (and its Gatehouse credential and refresh tokens) lasts 30 days unless revoked earlier. */
export const GRANT_SECONDS = 30 * 24 * 3_600;
