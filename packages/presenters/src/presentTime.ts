import type { PresentEnv, PresentedTime } from '@gatehousejs/core';
import { ConfigurationError } from '@gatehousejs/core';
import { boundedMemo, FORMATTER_LIMIT, fromNow, PRESENTED_TIME_SCHEMA } from '@gatehousejs/core/internal';
import { Temporal } from 'temporal-polyfill';
import type { Field } from './fieldTypes.js';
import { floorMs, instantString, instantTexts, zoneIdOf } from './internal/instantText.js';
import { makeField, typeName } from './internal/makeField.js';
import { weekdayName } from './internal/weekday.js';
import { resolveZone } from './internal/zones.js';

/** What a time field reads: a Temporal instant or zoned date-time, or a `Date`. */
export type InstantLike = Temporal.Instant | Temporal.ZonedDateTime | Date;

/** Options of {@link presentInstant} and `field.instant()`. */
export interface PresentTimeOptions {
  /** IANA zone to show; default the value's own zone (`ZonedDateTime`), else `UTC`. */
  readonly zone?: string;
  /** Locale of `weekday` and `from_now`; default `en-US`. */
  readonly locale?: string;
}

/**
 * Renders an instant for people and models: weekday, local time with
 * offset, zone, UTC, and distance from `env.now` (I20).
 *
 * The distance is computed from `env.now` at presentation time, so a
 * replayed result keeps the distance it had when first presented. Throws a
 * `ConfigurationError` for an unknown zone or locale, and a `TypeError` for
 * an invalid `Date`.
 *
 * @example
 * presentInstant(Temporal.Instant.from('2026-03-30T07:30:00Z'), { now }, { zone: 'Europe/Berlin' });
 * // { weekday: 'Monday', local: '2026-03-30T09:30:00+02:00', zone: 'Europe/Berlin', utc: '2026-03-30T07:30:00Z', from_now: 'in 3 days' }
 */
export function presentInstant(
  value: InstantLike,
  env: PresentEnv,
  options: PresentTimeOptions = {},
): PresentedTime {
  const { zone, locale } = checkOptions(options, 'presentInstant');
  return render(value, env, zone, locale, 'value');
}

/**
 * A field for an instant, returning {@link PresentedTime}. Its `version`
 * state is the exact instant and zone, so the passing of time never changes
 * a version. Throws a `ConfigurationError` for an unknown zone or locale.
 */
export function instantField(options: PresentTimeOptions = {}): Field<InstantLike, PresentedTime> {
  const { zone, locale } = checkOptions(options, 'field.instant');
  return makeField<InstantLike, PresentedTime>({
    kind: 'instant',
    shape: { type: 'leaf' },
    schema: PRESENTED_TIME_SCHEMA,
    present: (value, context) => render(value, context.env, zone, locale, context.path),
    state: (value, path) => {
      const moment = momentOf(value, zone, path);
      const utc = instantString(moment.ns);
      if (utc !== undefined) return { utc, zone: zoneIdOf(moment.zone) };
      const zoned = toZoned(moment);
      return { utc: zoned.toInstant().toString(), zone: zoned.timeZoneId };
    },
  });
}

function render(value: unknown, env: PresentEnv, zone: string | undefined, locale: string, path: string) {
  const moment = momentOf(value, zone, path);
  const nowMs = env.now.getTime();
  if (!Number.isFinite(nowMs)) throw new TypeError(`${path}: env.now is not a valid Date.`);
  const texts = instantTexts(moment.ns, moment.zone);
  if (texts !== undefined) {
    return {
      weekday: weekdayName(texts.dayOfWeek, locale),
      local: texts.local,
      zone: texts.zone,
      utc: texts.utc,
      from_now: fromNow(texts.ms, nowMs, locale),
    };
  }
  const zoned = toZoned(moment);
  return {
    weekday: weekdayName(zoned.dayOfWeek, locale),
    local: zoned.toString({ smallestUnit: 'second', timeZoneName: 'never' }),
    zone: zoned.timeZoneId,
    utc: zoned.toInstant().toString({ smallestUnit: 'second' }),
    from_now: fromNow(floorMs(moment.ns), nowMs, locale),
  };
}

/** An instant and the zone to show it in: the option, else the value's own zone, else UTC. */
interface Moment {
  readonly ns: bigint;
  readonly zone: string;
}

/** Accepts Temporal objects from any copy of Temporal (duck-typed on `epochNanoseconds`). */
function momentOf(value: unknown, zone: string | undefined, path: string): Moment {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms)) throw new TypeError(`${path}: the Date is invalid.`);
    return { ns: BigInt(ms) * 1_000_000n, zone: zone ?? 'UTC' };
  }
  if (typeof value === 'object' && value !== null && 'epochNanoseconds' in value) {
    const { epochNanoseconds, timeZoneId } = value as { epochNanoseconds: unknown; timeZoneId?: unknown };
    if (typeof epochNanoseconds === 'bigint') {
      const own = typeof timeZoneId === 'string' ? timeZoneId : undefined;
      return { ns: epochNanoseconds, zone: zone ?? own ?? 'UTC' };
    }
  }
  throw new TypeError(
    `${path}: expected a Temporal.Instant, Temporal.ZonedDateTime or Date, got ${typeName(value)}.`,
  );
}

/** The moment as a Temporal value, for what {@link instantTexts} leaves to Temporal. */
function toZoned(moment: Moment): Temporal.ZonedDateTime {
  return new Temporal.ZonedDateTime(moment.ns, moment.zone);
}

/** Checks a locale tag once (it throws for a bad one, which is not kept); every value shown checks it. */
const validLocale = boundedMemo(FORMATTER_LIMIT, (locale) => Intl.getCanonicalLocales(locale).length > 0);

function checkOptions(
  options: PresentTimeOptions,
  where: string,
): { zone: string | undefined; locale: string } {
  let zone: string | undefined;
  if (options.zone !== undefined) {
    const resolved = resolveZone(options.zone);
    if (!resolved.ok) throw new ConfigurationError(`${where}: ${resolved.message}`);
    zone = resolved.value;
  }
  const locale = options.locale ?? 'en-US';
  try {
    validLocale(locale);
  } catch {
    throw new ConfigurationError(`${where}: ${JSON.stringify(locale)} is not a valid locale tag.`);
  }
  return { zone, locale };
}
