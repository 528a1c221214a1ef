import type { JsonSchema } from '../json.js';

type Node = { readonly [keyword: string]: unknown };

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ANY: Node = Object.freeze({});

/** The subschemas of `allOf`/`anyOf`/`oneOf`; the boolean schema `true` accepts anything, like `{}`. */
const nodes = (value: unknown): Node[] =>
  Array.isArray(value) ? value.flatMap((item) => (isNode(item) ? [item] : item === true ? [ANY] : [])) : [];

const childPath = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** An argument a strict schema does not declare, with where it was found and what was allowed there. */
export interface UnknownArgument {
  /** Where it was sent: `surprise`, `starts_at.surprise`, `stops[1].note`. */
  readonly path: string;
  /** The object that holds it: `''` at the top level, else e.g. `starts_at` or `stops[1]`. */
  readonly parent: string;
  /** The keys that object declares. */
  readonly allowed: readonly string[];
}

/** Finds the unknown arguments in one call's arguments; see {@link unknownArgumentFinder}. */
export type UnknownArgumentFinder = (value: unknown) => UnknownArgument[];

/**
 * Prepares, once per schema, the search for arguments a strict input schema
 * does not declare, at every depth (I14): objects that list `properties`,
 * array items and tuples, record values (`additionalProperties`,
 * `patternProperties`), local `$ref` targets, every `allOf` member and, of an
 * `anyOf`/`oneOf`, the branch the value fits: branches whose `type`, `const`
 * or discriminating `const` property rule the value out are skipped; a
 * branch that accepts every key sent means nothing is unknown there, else
 * the branch with the fewest unknown keys is reported. Anything else is left
 * to the schema's own validator.
 */
export function unknownArgumentFinder(schema: JsonSchema): UnknownArgumentFinder {
  const root = schema as Node;
  const patterns = new Map<string, RegExp | undefined>();
  const patternOf = (source: string): RegExp | undefined => {
    if (!patterns.has(source)) {
      let compiled: RegExp | undefined;
      try {
        compiled = new RegExp(source, 'u');
      } catch {
        compiled = undefined;
      }
      patterns.set(source, compiled);
    }
    return patterns.get(source);
  };

  const resolve = (ref: unknown): Node | undefined => {
    if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
    let node: unknown = root;
    for (const token of ref.slice(1).split('/').slice(1)) {
      if (!isNode(node)) return undefined;
      const key = unescapeToken(token);
      if (key === undefined) return undefined;
      node = Object.hasOwn(node, key) ? node[key] : undefined;
    }
    return isNode(node) ? node : undefined;
  };

  const fits = (node: Node, value: unknown, depth = 0): boolean => {
    if (!typeAllows(node.type, value) || !constAllows(node, value) || !tagsAllow(node, value)) return false;
    const target = depth < 8 ? resolve(node.$ref) : undefined;
    return target ? fits(target, value, depth + 1) : true;
  };

  const inObject = (node: Node, value: Node, path: string): UnknownArgument[] => {
    const properties = isNode(node.properties) ? node.properties : undefined;
    const matchers = Object.entries(isNode(node.patternProperties) ? node.patternProperties : {});
    const extra = node.additionalProperties;
    const closed = extra === false || (extra === undefined && properties !== undefined);
    const allowed = Object.keys(properties ?? {});
    const found: UnknownArgument[] = [];
    for (const [key, child] of Object.entries(value)) {
      const here = childPath(path, key);
      const declared = properties && Object.hasOwn(properties, key) ? properties[key] : undefined;
      const matching = matchers.filter(([source]) => patternOf(source)?.test(key));
      if (isNode(declared)) found.push(...at(declared, child, here));
      for (const [, pattern] of matching) if (isNode(pattern)) found.push(...at(pattern, child, here));
      if (declared !== undefined || matching.length > 0) continue;
      if (isNode(extra)) found.push(...at(extra, child, here));
      else if (closed) found.push({ path: here, parent: path, allowed });
    }
    return found;
  };

  const inArray = (node: Node, value: readonly unknown[], path: string): UnknownArgument[] => {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : [];
    return value.flatMap((item, index) => {
      const schema = index < prefix.length ? prefix[index] : node.items;
      return isNode(schema) ? at(schema, item, `${path}[${index}]`) : [];
    });
  };

  const branch = (branches: readonly Node[], value: unknown, path: string, seen: Set<Node>) => {
    let best: UnknownArgument[] | undefined;
    for (const candidate of branches) {
      if (!fits(candidate, value)) continue;
      const found = at(candidate, value, path, seen);
      if (found.length === 0) return found;
      if (!best || found.length < best.length) best = found;
    }
    return best ?? [];
  };

  /** `seen` holds the schemas already applied to this value: a `$ref` cycle that reads no deeper ends. */
  const at = (node: Node, value: unknown, path: string, seen = new Set<Node>()): UnknownArgument[] => {
    if (seen.has(node)) return [];
    seen.add(node);
    const found: UnknownArgument[] = [];
    const target = resolve(node.$ref);
    if (target) found.push(...at(target, value, path, seen));
    for (const member of nodes(node.allOf)) found.push(...at(member, value, path, seen));
    for (const keyword of ['anyOf', 'oneOf']) {
      const branches = nodes(node[keyword]);
      if (branches.length > 0) found.push(...branch(branches, value, path, new Set(seen)));
    }
    if (Array.isArray(value)) found.push(...inArray(node, value, path));
    else if (isNode(value)) found.push(...inObject(node, value, path));
    return found;
  };

  return (value) => {
    const byPath = new Map<string, UnknownArgument>();
    for (const found of at(root, value, '')) if (!byPath.has(found.path)) byPath.set(found.path, found);
    return [...byPath.values()];
  };
}

/** One JSON Pointer token of a `$ref` fragment, or `undefined` for a malformed one. */
function unescapeToken(token: string): string | undefined {
  try {
    return decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
  } catch {
    return undefined;
  }
}

const jsonTypeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

function typeAllows(type: unknown, value: unknown): boolean {
  const types = Array.isArray(type) ? type : typeof type === 'string' ? [type] : undefined;
  if (!types) return true;
  const actual = jsonTypeOf(value);
  return types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
}

const isPrimitive = (value: unknown): boolean => value === null || typeof value !== 'object';

/** Whether `const` and `enum` (of primitives) leave room for `value`. */
function constAllows(node: Node, value: unknown): boolean {
  if ('const' in node && isPrimitive(node.const) && isPrimitive(value) && node.const !== value) return false;
  if (!Array.isArray(node.enum) || !isPrimitive(value) || !node.enum.every(isPrimitive)) return true;
  return node.enum.includes(value);
}

/** Whether every property with a primitive `const` that `value` sends has that value (a discriminated union's tag). */
function tagsAllow(node: Node, value: unknown): boolean {
  if (!isNode(value) || !isNode(node.properties)) return true;
  return Object.entries(node.properties).every(
    ([key, property]) =>
      !Object.hasOwn(value, key) ||
      !isNode(property) ||
      !('const' in property) ||
      !isPrimitive(property.const) ||
      value[key] === property.const,
  );
}
