import { boundedMemo, FORMATTER_LIMIT } from '@gatehousejs/core/internal';

/** A weekday formatter per locale, built once each. */
const weekdays = boundedMemo(
  FORMATTER_LIMIT,
  (locale) => new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' }),
);

/** The weekday name of an ISO day number (1 = Monday … 7 = Sunday) in a locale. */
export function weekdayName(dayOfWeek: number, locale: string): string {
  // 2024-01-01 was a Monday, so day n of that week is 2024-01-0n (UTC).
  return weekdays(locale).format(Date.UTC(2024, 0, dayOfWeek));
}
