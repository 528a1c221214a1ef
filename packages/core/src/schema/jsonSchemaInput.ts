import type { JsonSchema } from '../json.js';

const JSON_SCHEMA_INPUT = Symbol.for('gatehouse.JsonSchemaInput');

/** A raw JSON Schema used as a tool's input, carrying the type it validates to. */
export interface JsonSchemaInput<T> {
  readonly [JSON_SCHEMA_INPUT]: true;
  readonly schema: JsonSchema;
  /** Type-only: the validated input type. */
  readonly __type?: T;
}

/**
 * Declares a tool input as a raw JSON Schema (draft 2020-12), validated with
 * ajv. `T` is the type `run` receives; keeping it true to the schema is the
 * caller's promise, as with any JSON Schema.
 *
 * @example
 * input: jsonSchema<{ query: string }>({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] })
 */
export function jsonSchema<T>(schema: JsonSchema): JsonSchemaInput<T> {
  return Object.freeze({ [JSON_SCHEMA_INPUT]: true as const, schema });
}

/** True when `value` was made by {@link jsonSchema}. */
export function isJsonSchemaInput(value: unknown): value is JsonSchemaInput<unknown> {
  return typeof value === 'object' && value !== null && JSON_SCHEMA_INPUT in value;
}
