import type { JsonObject, JsonSchema, PresentEnv, Presenter } from '@gatehousejs/core';
import { ConfigurationError } from '@gatehousejs/core';
import type { FieldMap, PresentedOf, ValueOf, Versioning } from './fieldTypes.js';
import { flaggedPaths, withholdOneTime } from './internal/fieldPaths.js';
import { makeField } from './internal/makeField.js';
import { checkFields, checkVersioning, objectSpec, objectVersion } from './internal/objectField.js';

/** What {@link definePresenter} takes. */
export interface PresenterDefinition<TFields extends FieldMap, TVersioned extends Versioning> {
  /** The explicit field list: output key → field. Nothing else leaves. */
  readonly fields: TFields;
  /**
   * Stamp `version` (I12). `{ revision: 'revision' }` hashes the presented state
   * and the revision counter the record holds under that key, so the version
   * never repeats for one object; `true` hashes the state only, so it repeats
   * when the state returns to an earlier one (A→B→A). See {@link Versioning}.
   */
  readonly versioned?: TVersioned;
  /** Names the presented object in error messages, e.g. `booking`; default `record`. */
  readonly name?: string;
  /** Becomes the output schema's `description`. */
  readonly description?: string;
}

/**
 * A field-list presenter: core's {@link Presenter} with typed output and field metadata.
 * `TOutput` is an object of JSON values for every concrete field list, so a
 * `FieldPresenter<T, O>` is assignable to `Presenter<T>`.
 */
export interface FieldPresenter<TValue, TOutput> extends Omit<Presenter<TValue>, 'present' | 'forReplay'> {
  /** The field list it was defined with. */
  readonly fields: FieldMap;
  /** Whether `present` stamps `version`. */
  readonly versioned: boolean;
  /** The record key of the revision counter `version` includes; undefined for a content-only version. */
  readonly revisionKey: string | undefined;
  /** Paths of personal fields, e.g. `customer.email`, `attendees[].name`. */
  readonly personalFields: readonly string[];
  /** Paths of one-time fields, as `forReplay` lists them under `withheld`. */
  readonly oneTimeFields: readonly string[];
  /** JSON Schema of `present`'s output; every object has `additionalProperties: false`. */
  readonly outputSchema: JsonSchema;
  /** The listed fields of `value`, and `version` when versioned. */
  present(value: TValue, env: PresentEnv): TOutput;
  /** The presented object without one-time fields, with `withheld: [paths]` when any were present. */
  forReplay(presented: JsonObject): JsonObject;
  /** The `version` `present` stamps for `value`; compare it with the one a caller sends (I12). */
  versionOf(value: TValue): string;
}

const WITHHELD_SCHEMA: JsonSchema = {
  type: 'array',
  items: { type: 'string' },
  description: 'One-time fields left out of a replayed result; they were shown once.',
};

/**
 * Defines a presenter from an explicit field list (I17).
 *
 * Only listed fields leave, read one key each from the record: a record's
 * other columns (password hashes, tokens, internal notes) never appear,
 * whatever it holds. A versioned presenter stamps `version`: the first 16 hex
 * characters of the SHA-256 of the canonical JSON of the presented state
 * (one-time fields and the clock-dependent `from_now` left out), with
 * `versioned: { revision: 'revision' }` together with the record's revision
 * counter, which then must be a non-negative safe integer (a `TypeError`
 * naming the path otherwise). The version changes when a listed field or the
 * revision changes, and not otherwise. Throws a `ConfigurationError` for an
 * empty field list, a non-field entry, a malformed `versioned`, or a field
 * named `version` (when versioned) or `withheld` (with one-time fields).
 *
 * @example
 * const customerPresenter = definePresenter({
 *   versioned: { revision: 'revision' },
 *   fields: { id: field.string(), email: field.string().personal(), api_key: field.string().oneTime().nullable() },
 * });
 */
export function definePresenter<const TFields extends FieldMap, const TVersioned extends Versioning = false>(
  definition: PresenterDefinition<TFields, TVersioned>,
): FieldPresenter<ValueOf<TFields, TVersioned>, PresentedOf<TFields, TVersioned>> {
  const name = definition.name ?? 'record';
  const rule = checkVersioning(definition.versioned, `definePresenter(${name})`);
  const fields = checkFields(definition.fields, rule.versioned, `definePresenter(${name})`);
  const oneTimeFields = Object.freeze(flaggedPaths(fields, 'oneTime'));
  if (oneTimeFields.length > 0 && 'withheld' in fields) {
    throw new ConfigurationError(
      `definePresenter(${name}): "withheld" marks replayed one-time fields; rename the field.`,
    );
  }
  const root = makeField(objectSpec(fields, rule));
  return Object.freeze({
    fields,
    versioned: rule.versioned,
    revisionKey: rule.revision,
    personalFields: Object.freeze(flaggedPaths(fields, 'personal')),
    oneTimeFields,
    outputSchema: rootSchema(root.schema, oneTimeFields.length > 0, definition.description),
    present(value: ValueOf<TFields, TVersioned>, env: PresentEnv) {
      return root.present(value, { env, path: name }) as PresentedOf<TFields, TVersioned>;
    },
    forReplay(presented: JsonObject): JsonObject {
      const { value, withheld } = withholdOneTime(fields, presented);
      return withheld.length === 0 ? value : { ...value, withheld };
    },
    versionOf(value: ValueOf<TFields, TVersioned>): string {
      return objectVersion(fields, rule, value, name);
    },
  });
}

function rootSchema(schema: JsonSchema, hasOneTime: boolean, description: string | undefined): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  const withWithheld = hasOneTime
    ? { ...schema, properties: { ...properties, withheld: WITHHELD_SCHEMA } }
    : schema;
  return description === undefined ? withWithheld : { ...withWithheld, description };
}
