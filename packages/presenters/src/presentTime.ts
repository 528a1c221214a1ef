import type { PresentEnv, PresentedTime } from '@gatehousejs/core';
import { ConfigurationError } from '@gatehousejs/core';
import { fromNow, PRESENTED_TIME_SCHEMA } from '@gatehousejs/core/internal';
import { Temporal } from 'temporal-polyfill';
import type { Field } from './fieldTypes.js';
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
      const zoned = toZoned(value, zone, path);
      return { utc: zoned.toInstant().toString(), zone: zoned.timeZoneId };
    },
  });
}

function render(value: unknown, env: PresentEnv, zone: string | undefined, locale: string, path: string) {
  const zoned = toZoned(value, zone, path);
  const nowMs = env.now.getTime();
  if (!Number.isFinite(nowMs)) throw new TypeError(`${path}: env.now is not a valid Date.`);
  return {
    weekday: weekdayName(zoned.dayOfWeek, locale),
    local: zoned.toString({ smallestUnit: 'second', timeZoneName: 'never' }),
    zone: zoned.timeZoneId,
    utc: zoned.toInstant().toString({ smallestUnit: 'second' }),
    from_now: fromNow(zoned.epochMilliseconds, nowMs, locale),
  };
}

/** Accepts Temporal objects from any copy of Temporal (duck-typed on `epochNanoseconds`). */
function toZoned(value: unknown, zone: string | undefined, path: string): Temporal.ZonedDateTime {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms)) throw new TypeError(`${path}: the Date is invalid.`);
    return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone ?? 'UTC');
  }
  if (typeof value === 'object' && value !== null && 'epochNanoseconds' in value) {
    const { epochNanoseconds, timeZoneId } = value as { epochNanoseconds: unknown; timeZoneId?: unknown };
    if (typeof epochNanoseconds === 'bigint') {
      const own = typeof timeZoneId === 'string' ? timeZoneId : undefined;
      return new Temporal.ZonedDateTime(epochNanoseconds, zone ?? own ?? 'UTC');
    }
  }
  throw new TypeError(
    `${path}: expected a Temporal.Instant, Temporal.ZonedDateTime or Date, got ${typeName(value)}.`,
  );
}

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
    Intl.getCanonicalLocales(locale);
  } catch {
    throw new ConfigurationError(`${where}: ${JSON.stringify(locale)} is not a valid locale tag.`);
  }
  return { zone, locale };
}
