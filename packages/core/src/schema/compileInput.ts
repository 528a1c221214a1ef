import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { ConfigurationError, ToolError } from '../errors.js';
import type { JsonObject, JsonSchema } from '../json.js';
import { ECHO_LIMIT, echo } from '../text.js';
import { isJsonSchemaInput, type JsonSchemaInput } from './jsonSchemaInput.js';
import { strictSchema } from './strictness.js';
import { type UnknownArgument, unknownArgumentFinder } from './unknownArguments.js';

/** A Standard Schema (zod 4, valibot, arktype…) that can also describe itself as JSON Schema. */
export type StandardInput<T> = StandardSchemaV1<unknown, T> & StandardJSONSchemaV1<unknown, T>;

/** What a tool accepts as `input`: a Standard Schema with JSON Schema support, or {@link jsonSchema}. */
export type ToolInput<T> = StandardInput<T> | JsonSchemaInput<T>;

/** The validated input type of a {@link ToolInput}. */
export type InferInput<I> =
  I extends StandardSchemaV1<unknown, infer T> ? T : I extends JsonSchemaInput<infer T> ? T : never;

/** One validation problem, without the offending value. */
export interface InputIssue {
  readonly path: string;
  readonly message: string;
}

/** An input compiled once per definition: the advertised schema and the validator. */
export interface CompiledInput<T> {
  readonly jsonSchema: JsonSchema;
  /** The top-level argument names of the tool's own schema (guard-owned ones are not in it). */
  readonly allowed: readonly string[];
  /**
   * Validates and normalizes arguments; throws a {@link ToolError} on failure.
   * `alsoAllowed` names arguments taken out beforehand (guard-owned), for the top-level
   * allowed lists of `unknown_arguments` and `invalid_arguments`.
   */
  parse(args: unknown, alsoAllowed?: readonly string[]): Promise<T>;
}

const pathOf = (path: StandardSchemaV1.Issue['path']): string =>
  (path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.');

function invalid(tool: string, allowed: readonly string[], issues: readonly InputIssue[]): ToolError {
  const first = issues[0];
  return new ToolError({
    code: 'invalid_arguments',
    message: `Arguments for ${tool} are invalid${first ? `: ${first.path || '(root)'} ${first.message}` : ''}.`,
    fix: `Send arguments that match the input schema of ${tool} (see tools/list).`,
    details: { issues: issues.map((issue) => ({ ...issue })), allowed: [...allowed] },
  });
}

/**
 * Refuses arguments the schema does not declare, at any depth: `details.unknown`
 * lists their paths, `details.path` is the first one and `details.allowed` the
 * keys of the object that holds it (at the top level: every argument the tool
 * takes, guard-owned ones included).
 */
function refuseUnknown(
  tool: string,
  unknown: readonly UnknownArgument[],
  alsoAllowed: readonly string[],
): void {
  const first = unknown[0];
  if (!first) return;
  const allowed = first.parent === '' ? [...first.allowed, ...alsoAllowed] : first.allowed;
  // Unknown names are the caller's text: repeat at most ECHO_LIMIT characters of them.
  const shown = echoedNames(unknown.map((u) => u.path));
  const more = unknown.length - shown.length;
  const where = first.parent === '' ? '' : ` at ${echo(first.parent)}`;
  throw new ToolError({
    code: 'unknown_arguments',
    message: `${tool} does not accept ${shown.map((path) => `"${path}"`).join(', ')}${more > 0 ? ` and ${more} more` : ''}.`,
    fix: `Remove the unknown arguments. Allowed${where}: ${allowed.join(', ') || '(none)'}.`,
    details: {
      unknown: shown,
      ...(more > 0 ? { unknown_count: unknown.length } : {}),
      path: shown[0]!,
      allowed: [...allowed],
    },
  });
}

function standardJsonSchema(tool: string, input: StandardInput<unknown>): JsonSchema {
  const converter = input['~standard'].jsonSchema;
  if (!converter) {
    throw new ConfigurationError(`Tool ${tool}: the input schema cannot describe itself as JSON Schema.`);
  }
  const { $schema: _ignored, ...schema } = converter.input({ target: 'draft-2020-12' });
  return schema;
}

/**
 * Compiles a tool's input once, at definition time: computes the advertised
 * (strict) JSON Schema and prepares the validator. Parsing refuses unknown
 * arguments with the allowed list before the schema's own rules run (I14).
 */
export function compileInput<T>(tool: string, input: ToolInput<T>, ajv: Ajv2020): CompiledInput<T> {
  const raw = isJsonSchemaInput(input)
    ? input.schema
    : standardJsonSchema(tool, input as StandardInput<unknown>);
  if (raw.type !== 'object') {
    throw new ConfigurationError(`Tool ${tool}: the input schema must describe an object (type: "object").`);
  }
  const jsonSchema = Object.freeze(strictSchema(raw));
  const allowed = Object.freeze(Object.keys((jsonSchema.properties as JsonObject | undefined) ?? {}));
  const asObject = (args: unknown): unknown => (args === undefined ? {} : args);
  const findUnknown = unknownArgumentFinder(jsonSchema);
  /** Every argument the tool takes: its own, then the guard-owned ones taken out before parsing. */
  const topLevel = (alsoAllowed: readonly string[]) => [...allowed, ...alsoAllowed];

  if (isJsonSchemaInput(input)) {
    let validate: ReturnType<Ajv2020['compile']>;
    try {
      validate = ajv.compile(jsonSchema);
    } catch (error) {
      throw new ConfigurationError(
        `Tool ${tool}: the input JSON Schema does not compile (${(error as Error).message}).`,
      );
    }
    return {
      jsonSchema,
      allowed,
      async parse(args, alsoAllowed = []) {
        const value = structuredClone(asObject(args));
        refuseUnknown(tool, findUnknown(value), alsoAllowed);
        if (validate(value)) return value as T;
        const issues = (validate.errors ?? []).map((e) => ({
          path: e.instancePath.slice(1).replaceAll('/', '.'),
          message: e.message ?? 'is invalid',
        }));
        throw invalid(tool, topLevel(alsoAllowed), issues);
      },
    };
  }
  const standard = (input as StandardInput<T>)['~standard'];
  return {
    jsonSchema,
    allowed,
    async parse(args, alsoAllowed = []) {
      const value = asObject(args);
      refuseUnknown(tool, findUnknown(value), alsoAllowed);
      const result = await standard.validate(value);
      if (!result.issues) return result.value;
      throw invalid(
        tool,
        topLevel(alsoAllowed),
        result.issues.map((issue) => ({ path: pathOf(issue.path), message: issue.message })),
      );
    },
  };
}

/** As many of `names` as fit in {@link ECHO_LIMIT} characters (at least one, itself cut). */
function echoedNames(names: readonly string[]): string[] {
  const shown: string[] = [];
  let used = 0;
  for (const name of names) {
    if (shown.length > 0 && used + name.length > ECHO_LIMIT) break;
    const cut = echo(name);
    shown.push(cut);
    used += cut.length;
  }
  return shown;
}
