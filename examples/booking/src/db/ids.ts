import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** A new public id such as `bk_3f9a1c2b7d4e`: a prefix and 48 random bits. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** A new secret with a recognisable prefix and 256 random bits, for API tokens and sessions. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** A salted scrypt hash of a password, stored as `scrypt$<salt>$<hash>`. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64url')}$${scryptSync(password, salt, 32).toString('base64url')}`;
}

/** Checks a password against {@link hashPassword}'s output in constant time. */
export function passwordMatches(password: string, stored: string | null): boolean {
  const [scheme, salt, hash] = (stored ?? '').split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = scryptSync(password, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected);
}
