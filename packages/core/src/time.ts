import { boundedMemo, FORMATTER_LIMIT } from './internal/memo.js';
import type { JsonSchema } from './json.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `Intl.RelativeTimeFormat` by `<numeric>\0<locale>`, built once each. */
const relativeFormat = boundedMemo(FORMATTER_LIMIT, (key) => {
  const [numeric, locale] = key.split('\u0000') as ['auto' | 'always', string];
  return new Intl.RelativeTimeFormat(locale, { numeric });
});

/** The weekday of an instant in UTC, in English. */
const UTC_WEEKDAY = new Intl.DateTimeFormat('en-US', { weekday: 'long', timeZone: 'UTC' });

/**
 * Distance from `now` to `then` in words ("in 3 days", "2 hours ago"),
 * rounded in the largest unit that keeps the number below the next unit.
 */
export function fromNow(thenMs: number, nowMs: number, locale = 'en-US'): string {
  const diff = thenMs - nowMs;
  const seconds = Math.round(diff / SECOND);
  if (seconds === 0) return relativeFormat(`auto\u0000${locale}`).format(0, 'second');
  const format = relativeFormat(`always\u0000${locale}`);
  if (Math.abs(seconds) < 60) return format.format(seconds, 'second');
  const minutes = Math.round(diff / MINUTE);
  if (Math.abs(minutes) < 60) return format.format(minutes, 'minute');
  const hours = Math.round(diff / HOUR);
  if (Math.abs(hours) < 24) return format.format(hours, 'hour');
  const days = Math.round(diff / DAY);
  if (Math.abs(days) < 45) return format.format(days, 'day');
  const months = Math.round(days / 30.4375);
  if (Math.abs(months) < 12) return format.format(months, 'month');
  return format.format(Math.round(days / 365.25), 'year');
}

/** How every time leaves a Gatehouse server (I20). A type alias, so it is a `JsonObject`. */
export type PresentedTime = {
  /** Weekday in the zone, e.g. `Monday`. */
  readonly weekday: string;
  /** Local date-time with its offset, e.g. `2026-03-30T09:30:00+02:00`. */
  readonly local: string;
  /** The zone the local time is in, e.g. `Europe/Berlin`. */
  readonly zone: string;
  /** The same instant in UTC, e.g. `2026-03-30T07:30:00Z`. */
  readonly utc: string;
  /** Distance from the presentation time, e.g. `in 3 days`, `2 hours ago`. */
  readonly from_now: string;
};

/** JSON Schema of {@link PresentedTime}. */
export const PRESENTED_TIME_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    weekday: { type: 'string', description: 'Weekday in the zone.' },
    local: { type: 'string', description: 'Local date-time with offset (ISO 8601).' },
    zone: { type: 'string', description: 'IANA zone (or fixed offset) of local.' },
    utc: { type: 'string', description: 'The instant in UTC (ISO 8601).' },
    from_now: { type: 'string', description: 'Distance from the time of this result.' },
  },
  required: ['weekday', 'local', 'zone', 'utc', 'from_now'],
  additionalProperties: false,
});

/**
 * An instant shown in UTC, for times with no zone of their own (audit rows,
 * confirm expiry). Zoned business times use the presenters package.
 */
export function presentUtc(epochMs: number, now: Date): PresentedTime {
  const iso = new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    weekday: UTC_WEEKDAY.format(epochMs),
    local: iso.replace(/Z$/, '+00:00'),
    zone: 'UTC',
    utc: iso,
    from_now: fromNow(epochMs, now.getTime()),
  };
}
