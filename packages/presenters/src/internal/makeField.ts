import type { Json, JsonSchema } from '@gatehousejs/core';
import { ConfigurationError } from '@gatehousejs/core';
import type { AnyField, Field, FieldContext, FieldMeta, FieldShape } from '../fieldTypes.js';

const FIELD = Symbol.for('gatehouse.presenters.Field');

/** What a field kind implements; `makeField` adds nullability, flags and modifiers. */
export interface FieldSpec {
  readonly kind: string;
  readonly schema: JsonSchema;
  readonly shape: FieldShape;
  /** Presents a value that is neither `null` nor `undefined`. */
  present(value: unknown, context: FieldContext): Json;
  /** The state of a value that is neither `null` nor `undefined`. */
  state(value: unknown, path: string): Json;
}

const DEFAULT_META: FieldMeta = { personal: false, oneTime: false, nullable: false, description: undefined };

/** Builds an immutable field from a kind's spec. */
export function makeField<TIn, TOut>(spec: FieldSpec): Field<TIn, TOut> {
  return build(spec, DEFAULT_META, undefined);
}

function build<TIn, TOut, TSource extends string | undefined>(
  spec: FieldSpec,
  meta: FieldMeta,
  source: TSource,
): Field<TIn, TOut, TSource> {
  const withMeta = (patch: Partial<FieldMeta>) =>
    build<TIn, TOut, TSource>(spec, { ...meta, ...patch }, source);
  const field: Field<TIn, TOut, TSource> & { readonly [FIELD]: true } = {
    [FIELD]: true,
    kind: spec.kind,
    source,
    meta,
    shape: spec.shape,
    schema: schemaWithMeta(spec.schema, meta),
    present: (value, context) =>
      isAbsent(value) ? absent(meta, context.path) : spec.present(value, context),
    state: (value, path) => (isAbsent(value) ? absent(meta, path) : spec.state(value, path)),
    nullable: () =>
      build<TIn | null | undefined, TOut | null, TSource>(spec, { ...meta, nullable: true }, source),
    from: <TKey extends string>(key: TKey) => {
      if (typeof key !== 'string' || key === '') {
        throw new ConfigurationError(`${spec.kind} field: .from() needs a non-empty record key.`);
      }
      return build<TIn, TOut, TKey>(spec, meta, key);
    },
    personal: () => withMeta({ personal: true }),
    oneTime: () => withMeta({ oneTime: true }),
    describe: (text) => withMeta({ description: text }),
  };
  return Object.freeze(field);
}

/** True for values built by `makeField` (brand check, survives a double load). */
export function isField(value: unknown): value is AnyField {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[FIELD] === true;
}

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

function absent(meta: FieldMeta, path: string): null {
  if (meta.nullable) return null;
  throw new TypeError(`${path}: the value is missing and the field is not nullable.`);
}

function schemaWithMeta(schema: JsonSchema, meta: FieldMeta): JsonSchema {
  const base = meta.nullable ? nullableSchema(schema) : schema;
  return meta.description === undefined ? base : { ...base, description: meta.description };
}

/**
 * `anyOf: [schema, {type: 'null'}]`, never a `type` array: clients that map
 * tool schemas onto a single-`type` dialect reject `type: ['string', 'null']`.
 */
function nullableSchema(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

/** A short type name for error messages; never the value itself. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'Date';
  return typeof value;
}
