import type { Json, JsonObject, JsonSchema } from '@gatehousejs/core';
import { ConfigurationError, digest } from '@gatehousejs/core';
import type { AnyField, FieldContext, FieldMap } from '../fieldTypes.js';
import { type FieldSpec, isField, typeName } from './makeField.js';

/** Length of the hex prefix of the SHA-256 digest used as `version`. */
export const VERSION_LENGTH = 16;

const VERSION_PATTERN = `^[0-9a-f]{${VERSION_LENGTH}}$`;

const CONTENT_VERSION_SCHEMA: JsonSchema = {
  type: 'string',
  pattern: VERSION_PATTERN,
  description: 'Content hash of this object; send it back with updates.',
};

const REVISION_VERSION_SCHEMA: JsonSchema = {
  type: 'string',
  pattern: VERSION_PATTERN,
  description: 'Hash of this object and its revision; never repeats. Send it back with updates.',
};

/** A checked `versioned` option: whether `version` is stamped, and the record key of the revision it includes. */
export interface VersionRule {
  readonly versioned: boolean;
  readonly revision: string | undefined;
}

/**
 * The `version` for a state: the first 16 hex characters of the canonical-JSON
 * SHA-256 of the state, or of `{ revision, state }` when a revision is given.
 */
export function versionOfState(state: Json, revision?: number): string {
  return digest(revision === undefined ? state : { revision, state }).slice(0, VERSION_LENGTH);
}

/** Checks a `versioned` option at definition time: `true`, `false`, absent, or `{ revision: 'key' }`. */
export function checkVersioning(versioned: unknown, where: string): VersionRule {
  if (versioned === undefined || versioned === false) return { versioned: false, revision: undefined };
  if (versioned === true) return { versioned: true, revision: undefined };
  if (typeof versioned === 'object' && versioned !== null && !Array.isArray(versioned)) {
    const keys = Object.keys(versioned);
    const revision: unknown = (versioned as { readonly revision?: unknown }).revision;
    if (keys.length === 1 && typeof revision === 'string' && revision !== '') {
      return { versioned: true, revision };
    }
  }
  throw new ConfigurationError(
    `${where}: versioned is true, false or { revision: 'key' } naming the record key of its revision counter.`,
  );
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
export function objectSpec(fields: FieldMap, rule: VersionRule): FieldSpec {
  const entries = Object.entries(fields);
  return {
    kind: 'object',
    shape: { type: 'object', fields, versioned: rule.versioned, revisionKey: rule.revision },
    schema: objectSchema(entries, rule),
    present(value, context) {
      const record = asRecord(value, context.path);
      const out: Record<string, Json> = {};
      for (const [key, field] of entries) {
        out[key] = field.present(read(record, key, field), child(context, key));
      }
      if (rule.versioned) out.version = versionOfRecord(entries, rule, record, context.path);
      return out;
    },
    state(value, path) {
      return stateOf(entries, asRecord(value, path), path);
    },
  };
}

/** The `version` a versioned object with this field list and rule stamps on `value`. */
export function objectVersion(fields: FieldMap, rule: VersionRule, value: unknown, path: string): string {
  return versionOfRecord(Object.entries(fields), rule, asRecord(value, path), path);
}

function versionOfRecord(
  entries: readonly (readonly [string, AnyField])[],
  rule: VersionRule,
  record: object,
  path: string,
): string {
  const state = stateOf(entries, record, path);
  return rule.revision === undefined
    ? versionOfState(state)
    : versionOfState(state, revisionOf(record, rule.revision, path));
}

/** The revision counter the record holds under `key`: a non-negative safe integer. */
function revisionOf(record: object, key: string, path: string): number {
  const value: unknown = (record as Record<string, unknown>)[key];
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new TypeError(
    `${path}.${key}: expected the revision as a non-negative safe integer, got ${typeName(value)}.`,
  );
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

function objectSchema(entries: readonly (readonly [string, AnyField])[], rule: VersionRule): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, field] of entries) {
    properties[key] = field.schema;
    if (!field.meta.oneTime) required.push(key);
  }
  if (rule.versioned) {
    properties.version = rule.revision === undefined ? CONTENT_VERSION_SCHEMA : REVISION_VERSION_SCHEMA;
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
