import { boundedMemo, FORMATTER_LIMIT } from '@gatehousejs/core/internal';
import { Temporal } from 'temporal-polyfill';
import { type Outcome, quote } from './outcome.js';

/** Longest zone name read, in characters; the longest IANA name has 32. */
export const MAX_ZONE_LENGTH = 64;

/** The characters of an IANA zone name; a name with any other is unknown without a look-up. */
export const ZONE_CHARACTERS = /^[A-Za-z0-9_+\-/]+$/;

const OFFSET_LIKE = /^(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;
const ZONE_FORM =
  'Zones are IANA names of the form Region/City, such as "Europe/Berlin" or "America/New_York".';

/**
 * Resolves an IANA zone name to Temporal's id (case normalized).
 *
 * A name longer than {@link MAX_ZONE_LENGTH} is refused before anything
 * reads it; offsets are refused in the zone slot; a name with characters
 * outside {@link ZONE_CHARACTERS} or unknown to Temporal gets close matches.
 * Each name is resolved once (a zone is checked on every value shown and
 * every time read): the outcomes of the last {@link FORMATTER_LIMIT} names
 * are kept, the refusals too, so a stream of unknown names cannot make the
 * server look for close matches again and again.
 */
export function resolveZone(zone: string): Outcome<string> {
  if (zone.length > MAX_ZONE_LENGTH) {
    return {
      ok: false,
      message: `The time zone ${quote(zone, 32)} is ${zone.length} characters long; zone names have at most ${MAX_ZONE_LENGTH}. ${ZONE_FORM}`,
    };
  }
  return resolved(zone);
}

const resolved = boundedMemo(FORMATTER_LIMIT, (zone): Outcome<string> => Object.freeze(resolveOnce(zone)));

function resolveOnce(zone: string): Outcome<string> {
  const name = zone.trim();
  if (OFFSET_LIKE.test(name)) {
    return {
      ok: false,
      message: `${quote(name)} is an offset, not a time zone. Send an IANA zone such as "Europe/Berlin", or write the offset into the time instead ("2026-03-29T09:30:00+02:00").`,
    };
  }
  try {
    if (!ZONE_CHARACTERS.test(zone)) throw new RangeError('not a zone name');
    return { ok: true, value: new Temporal.ZonedDateTime(0n, zone).timeZoneId };
  } catch {
    const matches = closeZones(name);
    const hint = matches.length > 0 ? ` Did you mean ${matches.join(' or ')}?` : '';
    return { ok: false, message: `Unknown time zone ${quote(zone)}.${hint} ${ZONE_FORM}` };
  }
}

/** Up to three known zones equally closest to `name` (whole id, or city part when no region was given). */
export function closeZones(name: string): string[] {
  const query = name.toLowerCase().replace(/\s+/g, '_');
  const limit = Math.max(2, Math.floor(query.length / 3));
  const scored: { zone: string; score: number }[] = [];
  for (const zone of [...Intl.supportedValuesOf('timeZone'), 'UTC']) {
    const lower = zone.toLowerCase();
    const city = lower.slice(lower.lastIndexOf('/') + 1);
    const whole = distance(query, lower);
    const score = query.includes('/') ? whole : Math.min(whole, distance(query, city));
    if (score <= limit) scored.push({ zone, score });
  }
  const best = Math.min(...scored.map((entry) => entry.score));
  return scored
    .filter((entry) => entry.score === best)
    .map((entry) => entry.zone)
    .sort()
    .slice(0, 3);
}

/** Levenshtein distance between two short strings. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
