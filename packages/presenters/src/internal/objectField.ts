import type { Json, JsonObject, JsonSchema } from '@gatehousejs/core';
import { ConfigurationError, digest } from '@gatehousejs/core';
import type { AnyField, FieldContext, FieldMap } from '../fieldTypes.js';
import { type FieldSpec, isField, typeName } from './makeField.js';

/** Length of the hex prefix of the SHA-256 digest used as `version`. */
export const VERSION_LENGTH = 16;

const VERSION_SCHEMA: JsonSchema = {
  type: 'string',
  pattern: `^[0-9a-f]{${VERSION_LENGTH}}$`,
  description: 'Content hash of this object; send it back with updates.',
};

/** The `version` for a state: the first 16 hex characters of its canonical-JSON SHA-256. */
export function versionOfState(state: Json): string {
  return digest(state).slice(0, VERSION_LENGTH);
}

/** Checks a field list at definition time; `where` names the definition in messages. */
export function checkFields(fields: unknown, versioned: boolean, where: string): FieldMap {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new ConfigurationError(`${where}: the field list must be an object of fields.`);
  }
  const entries = Object.entries(fields);
  if (entries.length === 0) {
    throw new ConfigurationError(`${where}: the field list is empty; list the fields that may leave.`);
  }
  for (const [key, field] of entries) {
    if (!isField(field)) {
      throw new ConfigurationError(
        `${where}: "${key}" is not a field; build it with field.string(), field.object(), …`,
      );
    }
  }
  if (Object.hasOwn(fields, '__proto__')) {
    throw new ConfigurationError(`${where}: "__proto__" cannot be a field name.`);
  }
  if (versioned && 'version' in fields) {
    throw new ConfigurationError(`${where}: "version" is stamped by the presenter; rename the field.`);
  }
  return fields as FieldMap;
}

/** The spec of an object field: reads each listed key and nothing else. */
export function objectSpec(fields: FieldMap, versioned: boolean): FieldSpec {
  const entries = Object.entries(fields);
  return {
    kind: 'object',
    shape: { type: 'object', fields, versioned },
    schema: objectSchema(entries, versioned),
    present(value, context) {
      const record = asRecord(value, context.path);
      const out: Record<string, Json> = {};
      for (const [key, field] of entries) {
        out[key] = field.present(read(record, key, field), child(context, key));
      }
      if (versioned) out.version = versionOfState(stateOf(entries, record, context.path));
      return out;
    },
    state(value, path) {
      return stateOf(entries, asRecord(value, path), path);
    },
  };
}

function stateOf(
  entries: readonly (readonly [string, AnyField])[],
  record: object,
  path: string,
): JsonObject {
  const state: Record<string, Json> = {};
  for (const [key, field] of entries) {
    if (!field.meta.oneTime) state[key] = field.state(read(record, key, field), `${path}.${key}`);
  }
  return state;
}

function objectSchema(entries: readonly (readonly [string, AnyField])[], versioned: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, field] of entries) {
    properties[key] = field.schema;
    if (!field.meta.oneTime) required.push(key);
  }
  if (versioned) {
    properties.version = VERSION_SCHEMA;
    required.push('version');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The spec of a list field. */
export function listSpec(item: AnyField): FieldSpec {
  return {
    kind: 'list',
    shape: { type: 'list', item },
    schema: { type: 'array', items: item.schema },
    present(value, context) {
      return asArray(value, context.path).map((entry, index) =>
        item.present(entry, { env: context.env, path: `${context.path}[${index}]` }),
      );
    },
    state(value, path) {
      return asArray(value, path).map((entry, index) => item.state(entry, `${path}[${index}]`));
    },
  };
}

function read(record: object, key: string, field: AnyField): unknown {
  return (record as Record<string, unknown>)[field.source ?? key];
}

function child(context: FieldContext, key: string): FieldContext {
  return { env: context.env, path: `${context.path}.${key}` };
}

function asRecord(value: unknown, path: string): object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${path}: expected an object, got ${typeName(value)}.`);
  }
  return value;
}

function asArray(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`${path}: expected an array, got ${typeName(value)}.`);
  return value;
}
