import { boundedMemo, FORMATTER_LIMIT } from '@gatehousejs/core/internal';

/** The seven weekday names of a locale, Monday first, formatted once per locale. */
const weekdays = boundedMemo(FORMATTER_LIMIT, (locale) => {
  const format = new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' });
  // 2024-01-01 was a Monday, so day n of that week is 2024-01-0n (UTC).
  return Array.from({ length: 7 }, (_, day) => format.format(Date.UTC(2024, 0, day + 1)));
});

/** The weekday name of an ISO day number (1 = Monday … 7 = Sunday) in a locale. */
export function weekdayName(dayOfWeek: number, locale: string): string {
  return weekdays(locale)[dayOfWeek - 1] as string;
}
