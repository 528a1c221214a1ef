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

/** What {@link sha256Hex} uses of `node:crypto`'s `createHash`. */
type CreateHash = (algorithm: 'sha256') => {
  update(text: string, encoding: 'utf8'): { digest(encoding: 'hex'): string };
};

/**
 * `node:crypto`'s `createHash` where the runtime has it (Node, Deno, Bun),
 * asked of the runtime (`process.getBuiltinModule`) rather than imported, so
 * the root entry stays runtime-neutral; else undefined.
 */
const createHash = (() => {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const crypto = host?.getBuiltinModule?.('crypto') as { createHash?: CreateHash } | undefined;
  return crypto?.createHash;
})();

/**
 * Lower-case hex SHA-256 of a UTF-8 string. Synchronous and runtime-neutral:
 * the runtime's native hash where it has `node:crypto` (about ten times
 * faster for the short texts hashed per call), else a pure JavaScript one.
 * Both encode lone surrogates as U+FFFD, so both give the same digest.
 */
export function sha256Hex(text: string): string {
  return createHash ? createHash('sha256').update(text, 'utf8').digest('hex') : portableSha256Hex(text);
}

/** The pure JavaScript SHA-256 behind {@link sha256Hex}, for runtimes without `node:crypto` (and its tests). */
export function portableSha256Hex(text: string): string {
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
