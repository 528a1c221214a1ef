import type { Json, JsonSchema } from '@gatehousejs/core';
import { ConfigurationError } from '@gatehousejs/core';
import type {
  AnyField,
  Field,
  FieldMap,
  InputOf,
  OutputOf,
  PresentedOf,
  ValueOf,
  Versioning,
} from './fieldTypes.js';
import { isField, makeField, typeName } from './internal/makeField.js';
import { checkFields, checkVersioning, listSpec, objectSpec } from './internal/objectField.js';
import { moneyField } from './presentMoney.js';
import { instantField } from './presentTime.js';
import { sanitizeText, untrustedTextField } from './untrustedText.js';

/** Options of `field.object()`. */
export interface ObjectFieldOptions<TVersioned extends Versioning> {
  /**
   * Stamp `version` on this object (I12): `true` hashes the presented content,
   * `{ revision: 'revision' }` also the revision counter under that record key,
   * so the version never repeats (see {@link Versioning}).
   */
  readonly versioned?: TVersioned;
}

function leaf<T extends Json>(
  kind: string,
  schema: JsonSchema,
  accepts: (value: unknown) => value is T,
  expected: string,
  clean: (value: T) => T = (value) => value,
) {
  const check = (value: unknown, path: string): T => {
    if (!accepts(value)) throw new TypeError(`${path}: expected ${expected}, got ${typeName(value)}.`);
    return value;
  };
  return makeField<T, T>({
    kind,
    schema,
    shape: { type: 'leaf' },
    present: (value, context) => clean(check(value, context.path)),
    state: check,
  });
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isInteger = (value: unknown): value is number => Number.isSafeInteger(value);
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

function enumField<const TValues extends readonly [string, ...string[]]>(
  values: TValues,
): Field<TValues[number], TValues[number]> {
  if (!Array.isArray(values) || values.length === 0 || !values.every(isString)) {
    throw new ConfigurationError('field.enum: list at least one allowed string value.');
  }
  const allowed = new Set<string>(values);
  const accepts = (value: unknown): value is TValues[number] =>
    typeof value === 'string' && allowed.has(value);
  return leaf('enum', { type: 'string', enum: [...values] }, accepts, `one of ${values.join(', ')}`);
}

function objectField<const TFields extends FieldMap, const TVersioned extends Versioning = false>(
  fields: TFields,
  options: ObjectFieldOptions<TVersioned> = {},
): Field<ValueOf<TFields, TVersioned>, PresentedOf<TFields, TVersioned>> {
  const rule = checkVersioning(options.versioned, 'field.object');
  return makeField(objectSpec(checkFields(fields, rule.versioned, 'field.object'), rule));
}

function listField<TItem extends AnyField>(
  item: TItem,
): Field<readonly InputOf<TItem>[], readonly OutputOf<TItem>[]> {
  if (!isField(item)) throw new ConfigurationError('field.list: the item must be a field.');
  if (item.meta.oneTime) throw new ConfigurationError('field.list: mark the list one-time, not its item.');
  return makeField(listSpec(item));
}

/**
 * The field kinds a presenter's field list is built from (I17).
 *
 * Every field is immutable; chain `.nullable()`, `.from(key)`, `.personal()`,
 * `.oneTime()` and `.describe(text)` to refine it. A field presents only what
 * its kind allows and throws a `TypeError` naming the path (never the value)
 * when the record holds something else.
 *
 * @example
 * const fields = { id: field.string(), notes: field.untrustedText({ maxLength: 500 }).nullable() };
 */
export const field = Object.freeze({
  /**
   * A string, with every character that can hide or reorder text removed (controls but tab
   * and newline, bidi marks and overrides, zero-width and tag characters; the joiners
   * U+200C/U+200D stay), as {@link sanitizeText} does. Use `untrustedText` for text a third
   * party wrote: that also wraps and bounds it.
   */
  string: () => leaf('string', { type: 'string' }, isString, 'a string', sanitizeText),
  /** A finite number. */
  number: () => leaf('number', { type: 'number' }, isNumber, 'a finite number'),
  /** A safe integer. */
  integer: () => leaf('integer', { type: 'integer' }, isInteger, 'a safe integer'),
  /** `true` or `false`. */
  boolean: () => leaf('boolean', { type: 'boolean' }, isBoolean, 'a boolean'),
  /** One of a fixed list of strings. */
  enum: enumField,
  /** A nested object with its own field list; optionally versioned, by content or by content and revision. */
  object: objectField,
  /** A list of one item field. */
  list: listField,
  /** Third-party text, returned as `{ untrusted_text, note, omitted_characters }` (I16). */
  untrustedText: untrustedTextField,
  /** An instant, returned with weekday, local time, zone, UTC and distance from now (I20). */
  instant: instantField,
  /** A `Money` value, returned with minor units, currency and formatted string (I20). */
  money: moneyField,
});
