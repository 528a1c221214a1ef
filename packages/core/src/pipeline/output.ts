import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { ToolListing } from '../contract/tool.js';
import { ConfigurationError } from '../errors.js';
import type { JsonObject } from '../json.js';

/** Where a result broke its tool's `outputSchema`: a JSON Pointer and the rule it broke. */
export interface OutputMismatch {
  readonly path: string;
  readonly rule: string;
}

/** Checks a rendered `structuredContent` against its tool's advertised `outputSchema`. */
export type OutputCheck = (structured: JsonObject) => OutputMismatch | undefined;

/**
 * Compiles a tool's advertised `outputSchema` once, when the server is built (I19).
 *
 * The validator must not change what it checks, so `ajv` is an instance without
 * `useDefaults` or coercion. A schema ajv cannot compile is a configuration error.
 */
export function compileOutputCheck(listing: ToolListing, ajv: Ajv2020): OutputCheck {
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(listing.outputSchema as object);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(`Tool ${listing.name}: outputSchema does not compile (${why}).`);
  }
  return function checkOutput(structured) {
    if (validate(structured)) return undefined;
    const first = validate.errors?.[0];
    return { path: first?.instancePath || '/', rule: first?.keyword ?? 'schema' };
  };
}
