import type { Json, JsonObject } from '@gatehousejs/core';
import { isPlainObject } from '../internal/jsonRpc.js';
import type { ArgsSource, ContractHost } from './fixture.js';

/** Resolves arguments given as they are or computed from the host. */
export async function resolveArgs(
  source: ArgsSource<ContractHost> | undefined,
  host: ContractHost,
): Promise<JsonObject | undefined> {
  if (source === undefined) return undefined;
  return typeof source === 'function' ? await source(host) : source;
}

type Schema = Readonly<Record<string, unknown>>;

const asSchema = (value: unknown): Schema => (isPlainObject(value) ? value : {});

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  return Array.isArray(type)
    ? type.find((t): t is string => typeof t === 'string' && t !== 'null')
    : undefined;
}

/**
 * A plain value the schema accepts, as far as a small generator can tell:
 * `const`, the first `enum` value, `default`, the first `anyOf`/`oneOf`
 * branch, or a minimal value of the type (required properties only).
 */
export function minimalValue(input: unknown, depth = 0): Json {
  const schema = asSchema(input);
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as Json;
  if ('default' in schema) return schema.default as Json;
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches) && branches.length > 0) return minimalValue(branches[0], depth + 1);
  switch (typeOf(schema)) {
    case 'string': {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
      return 'x'.repeat(Math.max(min, 1));
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: min }, () => minimalValue(schema.items, depth + 1));
    }
    case 'null':
      return null;
    default:
      return depth > 8 ? {} : minimalObject(schema, depth);
  }
}

function minimalObject(schema: Schema, depth: number): JsonObject {
  const properties = asSchema(schema.properties);
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  return Object.fromEntries(required.map((name) => [name, minimalValue(properties[name], depth + 1)]));
}

/** Arguments synthesized from an input schema when the fixture gives no sample. */
export function synthesizeArgs(inputSchema: unknown): JsonObject {
  const value = minimalValue(inputSchema);
  return isPlainObject(value) ? (value as JsonObject) : {};
}

/** A copy of `args` with `path` (dot-separated) set to `value`. */
export function withPath(args: JsonObject, path: string, value: Json): JsonObject {
  const [head, ...rest] = path.split('.');
  if (head === undefined || head === '') return args;
  if (rest.length === 0) return { ...args, [head]: value };
  const child = isPlainObject(args[head]) ? (args[head] as JsonObject) : {};
  return { ...args, [head]: withPath(child, rest.join('.'), value) };
}

/** The value at `path` (dot-separated) inside `value`, if any. */
export function atPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** Every string leaf of `value`, with its path, in document order. */
export function stringLeaves(value: unknown, path = ''): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringLeaves(item, `${path}[${i}]`));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => stringLeaves(child, path ? `${path}.${key}` : key));
}

/** `args` with every string leaf replaced by `replace(index)`, structure kept. */
export function replaceStrings(value: Json, replace: (index: number) => string): Json {
  let index = 0;
  const visit = (node: Json): Json => {
    if (typeof node === 'string') return replace(index++);
    if (Array.isArray(node)) return node.map(visit);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, visit(child)]));
    }
    return node;
  };
  return visit(value);
}
