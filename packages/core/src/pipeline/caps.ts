import { ConfigurationError, ToolError } from '../errors.js';
import { echo } from '../text.js';

/** Bounds on the shape of a call's arguments, checked before any schema work (I14). */
export interface ArgumentCaps {
  /** Deepest nesting of objects and arrays; default 32. */
  readonly depth: number;
  /** Most keys in one object (and items in one array); default 1,000. */
  readonly keysPerObject: number;
  /** Most values in all, at every level; default 10,000. */
  readonly values: number;
  /** Longest key, in UTF-16 code units; default 128. */
  readonly keyLength: number;
  /** Longest string value, in UTF-16 code units; default 65,536 (64 KiB). */
  readonly stringLength: number;
}

/** The default {@link ArgumentCaps}. */
export const DEFAULT_ARGUMENT_CAPS: ArgumentCaps = Object.freeze({
  depth: 32,
  keysPerObject: 1_000,
  values: 10_000,
  keyLength: 128,
  stringLength: 65_536,
});

/** Validates and completes a server's argument caps; a bad value is a configuration error. */
export function argumentCaps(given: Partial<ArgumentCaps> = {}): ArgumentCaps {
  const caps = { ...DEFAULT_ARGUMENT_CAPS, ...given };
  for (const [name, value] of Object.entries(caps)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ConfigurationError(`createServer: argumentCaps.${name} must be a positive integer.`);
    }
  }
  return Object.freeze(caps);
}

type Limit = keyof ArgumentCaps;

function tooLarge(tool: string, limit: Limit, caps: ArgumentCaps, path: string): ToolError {
  const what: Record<Limit, string> = {
    depth: `nest deeper than ${caps.depth} levels`,
    keysPerObject: `hold more than ${caps.keysPerObject} keys or items in one object or array`,
    values: `hold more than ${caps.values} values in all`,
    keyLength: `use a key longer than ${caps.keyLength} characters`,
    stringLength: `hold a string longer than ${caps.stringLength} characters`,
  };
  const at = path ? ` (at ${echo(path)})` : '';
  return new ToolError({
    code: 'invalid_arguments',
    message: `Arguments for ${tool} are too large: they ${what[limit]}${at}. Nothing ran.`,
    fix: `Send smaller arguments that match the input schema of ${tool} (see tools/list).`,
    details: { limit, max: caps[limit], ...(path ? { path: echo(path) } : {}) },
  });
}

interface Visit {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Visit | undefined;
  readonly key: string | number | undefined;
}

/** The dotted path of a visit, built only when a refusal needs it. */
function pathOf(visit: Visit): string {
  const parts: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) {
    parts.push(typeof at.key === 'number' ? `[${at.key}]` : `.${at.key}`);
  }
  return parts.reverse().join('').replace(/^\./, '');
}

/**
 * Refuses arguments whose shape exceeds the caps, before any schema work, in
 * time and memory bounded by the caps themselves: the walk is iterative (no
 * recursion, so no stack overflow), builds no path unless it refuses, and
 * stops at the first breach.
 */
export function checkArgumentCaps(tool: string, args: unknown, caps: ArgumentCaps): void {
  const stack: Visit[] = [{ value: args, depth: 0, parent: undefined, key: undefined }];
  let values = 0;
  const refuse = (limit: Limit, visit: Visit) => tooLarge(tool, limit, caps, pathOf(visit));
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, depth } = visit;
    if (++values > caps.values) throw refuse('values', visit);
    if (typeof value === 'string') {
      if (value.length > caps.stringLength) throw refuse('stringLength', visit);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= caps.depth) throw refuse('depth', visit);
    if (Array.isArray(value)) {
      if (value.length > caps.keysPerObject) throw refuse('keysPerObject', visit);
      for (let index = 0; index < value.length; index++) {
        stack.push({ value: value[index], depth: depth + 1, parent: visit, key: index });
      }
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > caps.keysPerObject) throw refuse('keysPerObject', visit);
    for (const key of keys) {
      if (key.length > caps.keyLength) throw refuse('keyLength', visit);
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: visit, key });
    }
  }
}
