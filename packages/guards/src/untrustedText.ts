import {
  defineGuard,
  deny,
  type Json,
  type JsonObject,
  type OutputGuard,
  UNTRUSTED_TEXT_NOTE,
} from '@gatehousejs/core';
import { stripHidden } from '@gatehousejs/core/internal';

/** What a walk found: the first wrapper of third-party text that breaks the rule. */
interface Found {
  problem?: { readonly wrapper: JsonObject; readonly what: string };
}

const WRAPPER_KEYS = new Set(['untrusted_text', 'note', 'omitted_characters']);

/** Why `value`, an object carrying `untrusted_text`, is not the presenters' wrapper (I16), if it is not. */
function wrapperProblem(value: JsonObject): string | undefined {
  if (typeof value.untrusted_text !== 'string') return 'untrusted_text is not a string';
  if (value.note !== UNTRUSTED_TEXT_NOTE) return 'its note is not the untrusted-text note';
  const omitted = value.omitted_characters;
  if (typeof omitted !== 'number' || !Number.isInteger(omitted) || omitted < 0)
    return 'omitted_characters is not a count';
  if (Object.keys(value).some((key) => !WRAPPER_KEYS.has(key))) return 'it carries other fields';
  return undefined;
}

/**
 * One walk over what leaves: every string and key stripped of hidden
 * characters (the same object back when nothing changes), and every object
 * that carries `untrusted_text` checked to be the presenters' wrapper.
 */
function clean(value: Json, found: Found): Json {
  if (typeof value === 'string') return stripHidden(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let changed: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as Json;
      const cleaned = clean(item, found);
      if (cleaned === item) continue;
      changed ??= value.slice();
      changed[i] = cleaned;
    }
    return changed ?? value;
  }
  const object = value as JsonObject;
  if ('untrusted_text' in object && !found.problem) {
    const what = wrapperProblem(object);
    if (what) found.problem = { wrapper: object, what };
  }
  let changed: Record<string, Json> | undefined;
  for (const key in object) {
    const item = object[key] as Json;
    const cleanKey = stripHidden(key);
    const cleaned = clean(item, found);
    if (cleaned !== item || cleanKey !== key) {
      changed ??= { ...object };
      if (cleanKey !== key) delete changed[key];
      changed[cleanKey] = cleaned;
    }
  }
  return changed ?? object;
}

/** The JSON Pointer of `target` inside `value` (found again only for the refusal's message). */
function pathTo(value: Json, target: JsonObject, path = ''): string | undefined {
  if (value === target) return path || '/';
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = pathTo(item as Json, target, `${path}/${key}`);
    if (found) return found;
  }
  return undefined;
}

/**
 * Third-party text leaves only as data (I16), an output guard on every
 * result, preview and error: every string that leaves, whoever wrote it
 * (presenter, `prepare`, core), is stripped of control characters, bidi
 * marks and overrides, invisible format characters and the tag block; and
 * every object carrying `untrusted_text` must be the presenters' wrapper
 * (the fixed note, a count of omitted characters, nothing else), or the
 * call answers `internal_error`: a presenter that wraps by hand is a defect.
 * Which fields are third-party stays declared in the presenter
 * (`field.untrustedText()`).
 *
 * @example
 * createServer({ guards: [untrustedTextGuard(), …] });
 */
export function untrustedTextGuard(): OutputGuard {
  return defineGuard({
    kind: 'output',
    name: 'untrustedText',
    leave(structured: JsonObject, tool: string) {
      const found: Found = {};
      const cleaned = clean(structured, found) as JsonObject;
      if (!found.problem) return { ok: true, structured: cleaned };
      const { wrapper, what } = found.problem;
      return deny({
        code: 'internal_error',
        message: `${tool} returned a wrapper of third-party text at ${pathTo(structured, wrapper) ?? '/'} that is not the presenters' (${what}).`,
        fix: 'Wrap third-party text with field.untrustedText() or untrustedText() of @gatehousejs/presenters.',
      });
    },
  });
}
