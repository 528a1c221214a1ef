/** A JSON value: what crosses the wire and what the replay cache stores. */
export type Json = null | boolean | number | string | readonly Json[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  readonly [key: string]: Json;
}

/**
 * A JSON Schema document (draft 2020-12), as advertised in `tools/list`.
 * Kept structural on purpose: Gatehouse only reads `type`, `properties`,
 * `items`, `additionalProperties` and `description` from it.
 */
export interface JsonSchema {
  readonly [keyword: string]: unknown;
}

/** Whether `value` is a plain object (not null, not an array): the shape of JSON-RPC params and tool arguments. */
export const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
