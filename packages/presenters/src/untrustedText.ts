import type { JsonSchema } from '@gatehousejs/core';
import { ConfigurationError, UNTRUSTED_TEXT_NOTE } from '@gatehousejs/core';
import { stripHidden } from '@gatehousejs/core/internal';
import type { Field } from './fieldTypes.js';
import { makeField, typeName } from './internal/makeField.js';
import { truncateText } from './internal/truncate.js';

/** The fixed note every {@link UntrustedText} carries (I16); defined in core, which checks it on the way out. */
export { UNTRUSTED_TEXT_NOTE };

/** Default `maxLength` of untrusted text, in characters (code points). */
export const DEFAULT_UNTRUSTED_MAX_LENGTH = 2000;

/** Third-party text as it leaves the server: sanitized, bounded, labelled (I16). */
export type UntrustedText = {
  /** The sanitized text, at most `maxLength` characters, cut on a character boundary. */
  readonly untrusted_text: string;
  readonly note: typeof UNTRUSTED_TEXT_NOTE;
  /** How many characters were cut off the end; 0 when the text was whole. */
  readonly omitted_characters: number;
};

/** Options of {@link untrustedText} and `field.untrustedText()`. */
export interface UntrustedTextOptions {
  /** Most characters (code points) kept; a positive integer, default 2000. */
  readonly maxLength?: number;
}

/**
 * Removes every character that can hide or reorder text.
 *
 * Strips C0/C1 control characters except newline and tab (`\r` goes, so
 * `\r\n` becomes `\n`; U+2028/U+2029 become `\n`), bidi marks, embeddings,
 * overrides and isolates (U+200E, U+200F, U+061C, U+202A–U+202E,
 * U+2066–U+2069), zero-width and other invisible format characters
 * (U+200B, U+2060–U+2064, U+FEFF, U+00AD, U+180E, the whole tag block
 * U+E0000–U+E007F), variation selectors, lone surrogates and invisible
 * fillers. Letters, emoji, combining accents and the joiners U+200C and
 * U+200D (needed by Persian, Indic and emoji sequences) stay.
 *
 * @example
 * sanitizeText('pay\u202Eexe.txt\u200B'); // 'payexe.txt'
 */
export function sanitizeText(text: string): string {
  return stripHidden(text);
}

/**
 * Wraps third-party text for a result: sanitized, cut to `maxLength`
 * characters, under `untrusted_text` with the fixed note (I16).
 *
 * Use it for any string another party wrote, such as an error message
 * quoted from a remote system. Cuts never split a character or a grapheme
 * (an accent stays with its letter). Throws a `ConfigurationError` when
 * `maxLength` is not a positive integer.
 *
 * @example
 * untrustedText(remoteError, { maxLength: 300 });
 * // { untrusted_text: '…', note: UNTRUSTED_TEXT_NOTE, omitted_characters: 0 }
 */
export function untrustedText(text: string, options: UntrustedTextOptions = {}): UntrustedText {
  const maxLength = checkMaxLength(options.maxLength, 'untrustedText');
  const { kept, omitted } = truncateText(sanitizeText(text), maxLength);
  return { untrusted_text: kept, note: UNTRUSTED_TEXT_NOTE, omitted_characters: omitted };
}

/** The JSON Schema of {@link UntrustedText} for a given `maxLength`. */
export function untrustedTextSchema(maxLength: number): JsonSchema {
  return {
    type: 'object',
    description: 'Text written by a third party, sanitized and shortened.',
    properties: {
      untrusted_text: { type: 'string', maxLength },
      note: { type: 'string', const: UNTRUSTED_TEXT_NOTE },
      omitted_characters: { type: 'integer', minimum: 0 },
    },
    required: ['untrusted_text', 'note', 'omitted_characters'],
    additionalProperties: false,
  };
}

/**
 * A field for third-party text: reads a string, returns {@link UntrustedText}.
 * Its `version` state is the full raw text, so an edit past the cut still
 * changes the version. Throws a `ConfigurationError` for a bad `maxLength`.
 */
export function untrustedTextField(options: UntrustedTextOptions = {}): Field<string, UntrustedText> {
  const maxLength = checkMaxLength(options.maxLength, 'field.untrustedText');
  return makeField<string, UntrustedText>({
    kind: 'untrusted_text',
    shape: { type: 'leaf' },
    schema: untrustedTextSchema(maxLength),
    present: (value, context) => untrustedText(asString(value, context.path), { maxLength }),
    state: (value, path) => asString(value, path),
  });
}

function asString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new TypeError(`${path}: expected a string, got ${typeName(value)}.`);
  return value;
}

function checkMaxLength(value: number | undefined, where: string): number {
  if (value === undefined) return DEFAULT_UNTRUSTED_MAX_LENGTH;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigurationError(`${where}: maxLength must be a positive integer (characters).`);
  }
  return value;
}
