const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Distance from `now` to `then` in words ("in 3 days", "2 hours ago"),
 * rounded in the largest unit that keeps the number below the next unit.
 */
export function fromNow(thenMs: number, nowMs: number, locale: string): string {
  const diff = thenMs - nowMs;
  const seconds = Math.round(diff / SECOND);
  if (seconds === 0) return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(0, 'second');
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
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
