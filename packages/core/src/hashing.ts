import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import { ConfigurationError } from './errors.js';

/**
 * The RFC 8785 canonical JSON of a value: keys sorted at every level, numbers
 * in their shortest form. Throws for values JSON cannot carry (`undefined`
 * at the top, functions, `NaN`).
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new ConfigurationError('canonicalJson: the value has no JSON form.');
  return text;
}

/** Lower-case hex SHA-256 of a UTF-8 string. Synchronous and runtime-neutral. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * SHA-256 of the canonical JSON of `value`: the digest behind replay
 * fingerprints (I10), confirm content hashes (I9) and versions (I12).
 * Two values that differ only in key order have the same digest.
 */
export function digest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
