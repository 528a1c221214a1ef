import { boundedMemo, FORMATTER_LIMIT } from '@gatehousejs/core/internal';
import { Temporal } from 'temporal-polyfill';

/**
 * The texts of an instant in a zone without building Temporal objects per
 * value: the zone's offset comes from a few remembered stretches of time in
 * which it keeps one offset (found once through Temporal, with the zone's
 * transitions on either side), and the texts from `Date`'s ISO form. A list
 * of twenty bookings meets one or two stretches of its zone, so Temporal's
 * zone arithmetic runs once or twice instead of sixty times.
 *
 * Only the common case takes this path: years 1000–9999 (both the instant
 * and its local time) and offsets of whole minutes. Everything else returns
 * `undefined`, and the caller renders through Temporal as before; the
 * property tests hold both paths to the same texts.
 */

/** A stretch `[from, until)` of epoch milliseconds in which a zone keeps `offsetMs`. */
interface Stretch {
  readonly from: number;
  readonly until: number;
  readonly offsetMs: number;
}

/** A zone's Temporal id (case normalized) and the stretches met so far, newest first. */
interface ZoneStretches {
  readonly id: string;
  readonly stretches: Stretch[];
}

/** How many stretches a zone keeps: a list spanning a few years of DST changes. */
const STRETCHES_PER_ZONE = 8;
/** A stretch reaches at most this far either side of the instant that found it. */
const STRETCH_REACH_MS = 366 * 86_400_000;
const MINUTE_NS = 60_000_000_000;
/** Epoch milliseconds of 1000-01-01T00:00Z and 10000-01-01T00:00Z: four-digit years. */
const FIRST_MS = Date.UTC(1000, 0, 1);
const LAST_MS = Date.UTC(10_000, 0, 1);
const NS_PER_MS = 1_000_000n;
const NS_PER_SECOND = 1_000_000_000n;

/**
 * Stretches by the zone name asked for; making one checks the name (Temporal
 * throws its `RangeError` for an unknown zone, as building the value would).
 */
const zones = boundedMemo<ZoneStretches>(FORMATTER_LIMIT, (zone) => ({
  id: new Temporal.ZonedDateTime(0n, zone).timeZoneId,
  stretches: [],
}));

/** Temporal's id of a zone name (checked and case normalized), remembered. */
export function zoneIdOf(zone: string): string {
  return zones(zone).id;
}

/** The texts of an instant in a zone, as `field.instant()` shows and versions them. */
export interface InstantTexts {
  /** The zone's Temporal id. */
  readonly zone: string;
  /** Epoch milliseconds (floored). */
  readonly ms: number;
  /** ISO day of the week in the zone, 1 = Monday … 7 = Sunday. */
  readonly dayOfWeek: number;
  /** Local date-time to the second with the offset: `2026-03-30T09:30:00+02:00`. */
  readonly local: string;
  /** UTC to the second: `2026-03-30T07:30:00Z`. */
  readonly utc: string;
}

/** The epoch milliseconds of epoch nanoseconds, floored (as Temporal's `epochMilliseconds`). */
export function floorMs(ns: bigint): number {
  const ms = ns / NS_PER_MS;
  return Number(ns < 0n && ms * NS_PER_MS !== ns ? ms - 1n : ms);
}

/** {@link InstantTexts} of `ns` in `zone`, or `undefined` outside the common case. */
export function instantTexts(ns: bigint, zone: string): InstantTexts | undefined {
  const ms = floorMs(ns);
  if (!(ms >= FIRST_MS && ms < LAST_MS)) return undefined;
  const known = zones(zone);
  const offsetMs = offsetAt(known, ms);
  if (offsetMs === undefined) return undefined;
  const wall = ms + offsetMs;
  if (!(wall >= FIRST_MS && wall < LAST_MS)) return undefined;
  const local = new Date(wall);
  const day = local.getUTCDay();
  return {
    zone: known.id,
    ms,
    dayOfWeek: day === 0 ? 7 : day,
    local: `${local.toISOString().slice(0, 19)}${offsetText(offsetMs)}`,
    utc: `${new Date(ms).toISOString().slice(0, 19)}Z`,
  };
}

/** Temporal's `Instant#toString()` of `ns` (fraction to the nanosecond, trailing zeros cut), or `undefined` outside four-digit years. */
export function instantString(ns: bigint): string | undefined {
  const ms = floorMs(ns);
  if (!(ms >= FIRST_MS && ms < LAST_MS)) return undefined;
  const seconds = new Date(ms).toISOString().slice(0, 19);
  const fraction = Number(((ns % NS_PER_SECOND) + NS_PER_SECOND) % NS_PER_SECOND);
  if (fraction === 0) return `${seconds}Z`;
  return `${seconds}.${String(fraction).padStart(9, '0').replace(/0+$/, '')}Z`;
}

/** The zone's offset at `ms` from a remembered stretch, or found through Temporal and remembered. */
function offsetAt(zone: ZoneStretches, ms: number): number | undefined {
  for (const stretch of zone.stretches) {
    if (ms >= stretch.from && ms < stretch.until) return stretch.offsetMs;
  }
  const zoned = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone.id);
  const offsetNs = zoned.offsetNanoseconds;
  if (offsetNs % MINUTE_NS !== 0) return undefined; // seconds in the offset: Temporal rounds it to minutes in text
  const offsetMs = offsetNs / 1_000_000;
  const previous = zoned.getTimeZoneTransition('previous');
  const next = zoned.getTimeZoneTransition('next');
  // `previous` is the transition strictly before `ms`: when `ms` is itself one, the offset changed at `ms`
  const from =
    previous === null ? -Infinity : previous.offsetNanoseconds === offsetNs ? previous.epochMilliseconds : ms;
  const until = next === null ? Infinity : next.epochMilliseconds;
  zone.stretches.unshift({
    from: Math.max(from, ms - STRETCH_REACH_MS),
    until: Math.min(until, ms + STRETCH_REACH_MS),
    offsetMs,
  });
  if (zone.stretches.length > STRETCHES_PER_ZONE) zone.stretches.pop();
  return offsetMs;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** `+02:00`, `-05:30`, `+00:00` for whole minutes. */
function offsetText(offsetMs: number): string {
  const minutes = Math.abs(offsetMs) / 60_000;
  return `${offsetMs < 0 ? '-' : '+'}${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;
}
