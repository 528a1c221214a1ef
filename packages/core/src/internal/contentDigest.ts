import { digest } from '../hashing.js';
import type { Json, JsonObject } from '../json.js';

/** The keys of a `PresentedTime`, sorted. */
const PRESENTED_TIME_KEYS = ['from_now', 'local', 'utc', 'weekday', 'zone'] as const;

/** Whether an object has exactly the keys of a `PresentedTime`, each a string. */
function isPresentedTime(value: JsonObject): value is JsonObject & { utc: string; zone: string } {
  const keys = Object.keys(value);
  if (keys.length !== PRESENTED_TIME_KEYS.length) return false;
  return PRESENTED_TIME_KEYS.every((key) => typeof value[key] === 'string');
}

/** A copy of `value` with every presented time reduced to the instant and zone it names. */
function stable(value: Json): Json {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return (value as readonly Json[]).map(stable);
  const object = value as JsonObject;
  if (isPresentedTime(object)) return { utc: object.utc, zone: object.zone };
  const copy: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(object)) copy[key] = stable(item);
  return copy;
}

/**
 * The hash of an outward tool's prepared content, compared between preview
 * and confirmation (I9): the `digest` of the content in which every
 * presented time (an object with exactly the keys weekday, local, zone,
 * utc, from_now) counts only by its `utc` and `zone`. So `from_now`, which
 * changes as the clock moves, and the wording of `weekday` and `local`
 * never make content look changed; another instant or zone always does.
 * Everything else counts as it is.
 *
 * @example
 * contentDigest({ until: presentUtc(ms, earlier) }) === contentDigest({ until: presentUtc(ms, later) }); // true
 */
export function contentDigest(content: Json): string {
  return digest(stable(content));
}
