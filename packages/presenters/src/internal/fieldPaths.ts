import type { Json, JsonObject } from '@gatehousejs/core';
import type { AnyField, FieldMap, FieldMeta } from '../fieldTypes.js';

/**
 * Paths of the fields whose flag is set, e.g. `customer.email`,
 * `attendees[].email`. A flagged object is listed once, not its children.
 */
export function flaggedPaths(
  fields: FieldMap,
  flag: keyof Pick<FieldMeta, 'personal' | 'oneTime'>,
): string[] {
  const paths: string[] = [];
  const visit = (field: AnyField, path: string): void => {
    if (field.meta[flag]) {
      paths.push(path);
      return;
    }
    if (field.shape.type === 'object') {
      for (const [key, child] of Object.entries(field.shape.fields)) visit(child, `${path}.${key}`);
    } else if (field.shape.type === 'list') {
      visit(field.shape.item, `${path}[]`);
    }
  };
  for (const [key, field] of Object.entries(fields)) visit(field, key);
  return paths;
}

/** A presented object without its one-time fields, plus the paths it withheld. */
export function withholdOneTime(
  fields: FieldMap,
  presented: JsonObject,
): { value: JsonObject; withheld: string[] } {
  const withheld: string[] = [];
  const value = stripObject(fields, presented, '', withheld);
  return { value, withheld };
}

function stripObject(
  fields: FieldMap,
  presented: JsonObject,
  prefix: string,
  withheld: string[],
): JsonObject {
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(presented)) {
    const field = fields[key];
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (field === undefined) {
      out[key] = value;
    } else if (field.meta.oneTime) {
      if (!withheld.includes(path)) withheld.push(path);
    } else {
      out[key] = strip(field, value, path, withheld);
    }
  }
  return out;
}

function strip(field: AnyField, value: Json, path: string, withheld: string[]): Json {
  if (field.shape.type === 'object' && isObject(value)) {
    return stripObject(field.shape.fields, value, path, withheld);
  }
  if (field.shape.type === 'list' && Array.isArray(value)) {
    const item = field.shape.item;
    return value.map((entry: Json) => strip(item, entry, `${path}[]`, withheld));
  }
  return value;
}

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
