import type { JsonSchema } from '../json.js';

type Node = { readonly [keyword: string]: unknown };

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const propertiesOf = (node: Node): Node | undefined =>
  isNode(node.properties) ? node.properties : undefined;

/**
 * A copy of an input schema in which every object that lists `properties`
 * and says nothing about extra keys forbids them (`additionalProperties:
 * false`), so the advertised schema tells clients what the server enforces.
 */
export function strictSchema(schema: JsonSchema): JsonSchema {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isNode(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === 'properties' && isNode(value) ? mapValues(value, visit) : visit(value);
    }
    if (propertiesOf(node) && !('additionalProperties' in node)) out.additionalProperties = false;
    return out;
  };
  return visit(schema) as JsonSchema;
}

const mapValues = (node: Node, fn: (value: unknown) => unknown) =>
  Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fn(value)]));

/** Calls `visit` with every property name and description the schema holds, at any depth. */
export function walkSchema(
  schema: JsonSchema,
  visit: (entry: { readonly path: string; readonly name?: string; readonly description?: string }) => void,
  path = '',
): void {
  if (typeof schema.description === 'string') visit({ path, description: schema.description });
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isNode(value)) {
      for (const [name, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${name}` : name;
        visit({ path: childPath, name });
        if (isNode(child)) walkSchema(child, visit, childPath);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) walkSchema(item, visit, path);
    } else if (isNode(value) && key !== 'properties') {
      walkSchema(value, visit, path);
    }
  }
}
