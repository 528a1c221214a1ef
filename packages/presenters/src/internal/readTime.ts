import { Temporal } from 'temporal-polyfill';
import { fail, type Outcome, quote } from './outcome.js';
import { weekdayName } from './weekday.js';
import { resolveZone } from './zones.js';

/** The accepted forms, named in every rejection. */
export const TIME_FORMS =
  'Send either a local time with an IANA zone ({"local": "2026-03-29T09:30", "zone": "Europe/Berlin"} or "2026-03-29T09:30[Europe/Berlin]") or ISO 8601 with an offset ("2026-03-29T09:30:00+02:00").';

/** Longest time text read (a whole time string, or `local`), in characters. */
export const MAX_TIME_LENGTH = 64;

/** The refusal of a time text longer than {@link MAX_TIME_LENGTH}, before any parsing. */
export function timeTooLong(what: string, text: string): string {
  return `${what} ${quote(text, 32)} is ${text.length} characters long; a time has at most ${MAX_TIME_LENGTH}. ${TIME_FORMS}`;
}

const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)([zZ]|[+-]\d{2}:\d{2})?(?:\[([^\]]*)\]|\s+(\S+))?$/;

interface Parts {
  readonly local: string;
  readonly offset: string | undefined;
  readonly zone: string | undefined;
}

/**
 * Reads a time input (string or `{ local, zone }`) into a `ZonedDateTime`,
 * or says why not. A time text longer than {@link MAX_TIME_LENGTH} and a
 * zone name longer than `MAX_ZONE_LENGTH` are refused before any parsing.
 * A time sent with only an offset gets that fixed offset as its zone
 * (`+00:00` for `Z`), never a named zone.
 */
export function readTime(input: unknown): Outcome<Temporal.ZonedDateTime> {
  if (typeof input === 'string') {
    return input.length > MAX_TIME_LENGTH ? fail(timeTooLong('The time', input)) : readString(input);
  }
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const { local, zone } = input as { local?: unknown; zone?: unknown };
    if (typeof local !== 'string') {
      return fail(`"local" must be a string such as "2026-03-29T09:30". ${TIME_FORMS}`);
    }
    if (typeof zone !== 'string') {
      return fail(`"zone" must be an IANA zone such as "Europe/Berlin". ${TIME_FORMS}`);
    }
    if (local.length > MAX_TIME_LENGTH) return fail(timeTooLong('"local"', local));
    const parts = split(local);
    if (parts === undefined) return fail(`"local" ${quote(local)} is not a date-time. ${TIME_FORMS}`);
    if (parts.offset !== undefined || parts.zone !== undefined) {
      return fail(`"local" must hold only the local date-time, without offset or zone. ${TIME_FORMS}`);
    }
    return readLocal(parts.local, zone);
  }
  return fail(`Expected a date-time. ${TIME_FORMS}`);
}

function split(text: string): Parts | undefined {
  const match = DATE_TIME.exec(text.trim());
  if (match === null) return undefined;
  const [, date, time, offset, bracketZone, spacedZone] = match;
  return { local: `${date}T${time}`, offset: normalizeOffset(offset), zone: bracketZone ?? spacedZone };
}

function normalizeOffset(offset: string | undefined): string | undefined {
  if (offset === undefined) return undefined;
  return offset === 'z' || offset === 'Z' || offset === '-00:00' ? '+00:00' : offset;
}

function readString(text: string): Outcome<Temporal.ZonedDateTime> {
  const parts = split(text);
  if (parts === undefined) {
    const what = /^\s*\d{4}-\d{2}-\d{2}\s*$/.test(text) ? 'A date alone is not a time.' : 'Not a date-time.';
    return fail(`${what} ${TIME_FORMS}`);
  }
  const { local, offset, zone } = parts;
  if (offset !== undefined && zone !== undefined) return readOffsetInZone(local, offset, zone);
  if (offset !== undefined) return readOffset(local, offset);
  if (zone !== undefined) return readLocal(local, zone);
  return fail(`${quote(local)} has no zone or offset, so it names no instant. ${TIME_FORMS}`);
}

function plain(local: string): Outcome<Temporal.PlainDateTime> {
  try {
    return { ok: true, value: Temporal.PlainDateTime.from(local, { overflow: 'reject' }) };
  } catch {
    return fail(`${quote(local)} is not a calendar date-time; check the month, day and hour.`);
  }
}

/** An offset-only time: the instant, in the fixed-offset zone of the offset sent. */
function readOffset(local: string, offset: string): Outcome<Temporal.ZonedDateTime> {
  const date = plain(local);
  if (!date.ok) return date;
  try {
    const instant = Temporal.Instant.from(`${local}${offset}`);
    return { ok: true, value: instant.toZonedDateTimeISO(offset) };
  } catch {
    return fail(
      `${quote(offset)} is not a valid UTC offset; write it as +HH:MM, e.g. "+02:00". ${TIME_FORMS}`,
    );
  }
}

function readLocal(local: string, zoneName: string): Outcome<Temporal.ZonedDateTime> {
  const zone = resolveZone(zoneName);
  if (!zone.ok) return zone;
  const date = plain(local);
  if (!date.ok) return date;
  const found = candidates(date.value, zone.value);
  const [only, second] = found;
  if (only !== undefined && second === undefined) return { ok: true, value: only };
  return found.length === 0 ? gap(local, date.value, zone.value) : overlap(local, zone.value, found);
}

function readOffsetInZone(local: string, offset: string, zoneName: string): Outcome<Temporal.ZonedDateTime> {
  const zone = resolveZone(zoneName);
  if (!zone.ok) return zone;
  const date = plain(local);
  if (!date.ok) return date;
  const found = candidates(date.value, zone.value);
  const match = found.find((candidate) => candidate.offset === offset);
  if (match !== undefined) return { ok: true, value: match };
  if (found.length === 0) return gap(local, date.value, zone.value);
  const valid = found.map((candidate) => candidate.offset).join(' or ');
  return fail(
    `${quote(local)} in ${zone.value} has offset ${valid}, not ${offset}. Fix the offset or leave it out.`,
  );
}

/** The instants a wall-clock time names in a zone: none (gap), one, or two (overlap). */
function candidates(date: Temporal.PlainDateTime, zone: string): Temporal.ZonedDateTime[] {
  const earlier = date.toZonedDateTime(zone, { disambiguation: 'earlier' });
  const later = date.toZonedDateTime(zone, { disambiguation: 'later' });
  const found = [earlier, later].filter((candidate) => candidate.toPlainDateTime().equals(date));
  return found.length === 2 && earlier.offset === later.offset ? [earlier] : found;
}

function option(zoned: Temporal.ZonedDateTime): string {
  return zoned.toString({ smallestUnit: 'second' });
}

function weekdayDate(zoned: Temporal.ZonedDateTime): string {
  return `${weekdayName(zoned.dayOfWeek, 'en-US')} ${zoned.toPlainDate().toString()}`;
}

function minutes(zoned: Temporal.ZonedDateTime): string {
  return zoned.toPlainTime().toString({ smallestUnit: 'minute' });
}

function gap(local: string, date: Temporal.PlainDateTime, zone: string): Outcome<never> {
  const before = date.toZonedDateTime(zone, { disambiguation: 'earlier' });
  const after =
    before.getTimeZoneTransition('next') ?? date.toZonedDateTime(zone, { disambiguation: 'later' });
  const lastBefore = after.subtract({ minutes: 1 });
  const jumpFrom = minutes(after.toInstant().toZonedDateTimeISO(lastBefore.offset));
  return fail(
    `${quote(local)} does not exist in ${zone}: on ${weekdayDate(after)} clocks jump from ${jumpFrom} (${lastBefore.offset}) to ${minutes(after)} (${after.offset}). Send a time that exists, e.g. ${option(lastBefore)} (just before the change) or ${option(after)} (just after).`,
  );
}

function overlap(local: string, zone: string, found: readonly Temporal.ZonedDateTime[]): Outcome<never> {
  const [first, second] = found as readonly [Temporal.ZonedDateTime, Temporal.ZonedDateTime];
  const back = second.getTimeZoneTransition('previous') ?? second;
  const backFrom = minutes(back.toInstant().toZonedDateTimeISO(first.offset));
  return fail(
    `${quote(local)} happens twice in ${zone}: on ${weekdayDate(second)} clocks go back from ${backFrom} (${first.offset}) to ${minutes(back)} (${second.offset}). Say which one with its offset: ${option(first)} (first, ${first.offset}) or ${option(second)} (second, ${second.offset}).`,
  );
}
