import type { Json, JsonSchema, PresentEnv } from '@gatehousejs/core';

/** Where a field is being presented: the presentation env and a path for error messages. */
export interface FieldContext {
  readonly env: PresentEnv;
  /** Dotted path of the field, e.g. `booking.customer.name`; never holds a value. */
  readonly path: string;
}

/** The flags a field carries besides its kind. */
export interface FieldMeta {
  /** Personal data (a name, an e-mail): listed by {@link FieldPresenter.personalFields}. */
  readonly personal: boolean;
  /** Shown once, never cached by replay: `forReplay` removes it and lists it under `withheld`. */
  readonly oneTime: boolean;
  /** `null` and `undefined` present as `null` instead of failing. */
  readonly nullable: boolean;
  /** Becomes the field's `description` in the output schema. */
  readonly description: string | undefined;
}

/**
 * How a versioned object stamps `version` (I12): `true` hashes its presented
 * content only, so the version repeats when the content returns to an earlier
 * state (A→B→A); `{ revision: 'revision' }` also hashes the revision counter
 * the record holds under that key, so the version never repeats for one object.
 * `false` stamps nothing.
 */
export type Versioning = boolean | { readonly revision: string };

/** How a field nests: a leaf, an object with its own field list, or a list of one item field. */
export type FieldShape =
  | { readonly type: 'leaf' }
  | {
      readonly type: 'object';
      readonly fields: FieldMap;
      readonly versioned: boolean;
      /** The record key of the revision counter `version` includes, if any. */
      readonly revisionKey: string | undefined;
    }
  | { readonly type: 'list'; readonly item: AnyField };

/**
 * One entry of a presenter's field list: what it reads, what it returns, and its schema.
 *
 * Fields are immutable: every modifier returns a new field. `TIn` is what the
 * record holds, `TOut` the JSON that leaves, `TSource` the record key read
 * when it differs from the output key (set with `.from()`).
 */
export interface Field<TIn, TOut, TSource extends string | undefined = undefined> {
  /** Type carrier only; never set at run time. */
  readonly '~types'?: { readonly input: TIn; readonly output: TOut };
  /** The kind name, e.g. `string`, `object`, `untrusted_text`. */
  readonly kind: string;
  /** The record key to read, when it differs from the output key. */
  readonly source: TSource;
  readonly meta: FieldMeta;
  readonly shape: FieldShape;
  /** JSON Schema of exactly what `present` returns for this field. */
  readonly schema: JsonSchema;
  /** The JSON for one value; throws a `TypeError` naming the path when the value has the wrong type. */
  present(value: unknown, context: FieldContext): Json;
  /** The value's state for `version`: independent of the clock, one-time fields left out. */
  state(value: unknown, path: string): Json;
  /** Accepts `null`/`undefined` and presents them as `null`. */
  nullable(): Field<TIn | null | undefined, TOut | null, TSource>;
  /** Reads `key` from the record instead of the output key. */
  from<TKey extends string>(key: TKey): Field<TIn, TOut, TKey>;
  /** Marks the field as personal data. */
  personal(): Field<TIn, TOut, TSource>;
  /** Marks the field as one-time: never kept by the replay cache. */
  oneTime(): Field<TIn, TOut, TSource>;
  /** Sets the schema description. */
  describe(text: string): Field<TIn, TOut, TSource>;
}

/** Any field, whatever it reads and returns. */
export type AnyField = Field<unknown, unknown, string | undefined>;

/** A field list: output key → field. */
export type FieldMap = { readonly [key: string]: AnyField };

/** What a field reads from the record. */
export type InputOf<TField extends AnyField> = NonNullable<TField['~types']>['input'];

/** The JSON a field returns. */
export type OutputOf<TField extends AnyField> = NonNullable<TField['~types']>['output'];

type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

type SourceKey<K, TField> = TField extends { readonly source: infer S } ? (S extends string ? S : K) : K;

type OptionalKeys<TFields extends FieldMap> = {
  [K in keyof TFields]: undefined extends InputOf<TFields[K]> ? K : never;
}[keyof TFields];

/** The revision key a {@link Versioning} reads, as a record type: `{ readonly revision: number }`. */
export type RevisionOf<TVersioned extends Versioning> = TVersioned extends {
  readonly revision: infer K extends string;
}
  ? { readonly [P in K]: number }
  : unknown;

/**
 * The record type a field list reads: one key per field (renamed by `.from()`), nullable
 * fields optional, and the revision key when `TVersioned` names one.
 */
export type ValueOf<TFields extends FieldMap, TVersioned extends Versioning = false> = Simplify<
  {
    readonly [K in keyof TFields as K extends OptionalKeys<TFields>
      ? never
      : SourceKey<K, TFields[K]>]: InputOf<TFields[K]>;
  } & {
    readonly [K in keyof TFields as K extends OptionalKeys<TFields>
      ? SourceKey<K, TFields[K]>
      : never]?: InputOf<TFields[K]>;
  } & RevisionOf<TVersioned>
>;

/** The JSON object a field list returns, plus `version` when versioned. */
export type PresentedOf<TFields extends FieldMap, TVersioned extends Versioning = false> = Simplify<
  { readonly [K in keyof TFields]: OutputOf<TFields[K]> } & (TVersioned extends
    | true
    | { readonly revision: string }
    ? { readonly version: string }
    : unknown)
>;
