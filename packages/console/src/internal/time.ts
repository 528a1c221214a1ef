import { boundedMemo, FORMATTER_LIMIT, fromNow } from '@gatehousejs/core/internal';
import type { HtmlEscapedString } from 'hono/utils/html';
import { html } from './html.js';

/** A date-time formatter per zone, built once each; zones come from data, so the cache is bounded. */
const formatIn = boundedMemo(
  FORMATTER_LIMIT,
  (zone) =>
    new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    }),
);

/** Whether `zone` is an IANA time zone this runtime knows. */
export function knownZone(zone: string): boolean {
  try {
    formatIn(zone);
    return true;
  } catch {
    return false;
  }
}

/** A time as ISO 8601 in UTC, to the second. */
export const utcText = (ms: number): string =>
  `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** A time in `zone` (`Tue, 8 Dec 2026, 09:00 CET`), how far from now, and UTC in its title. */
export function timeHtml(
  ms: number,
  zone: string,
  now: number,
): HtmlEscapedString | Promise<HtmlEscapedString> {
  const local = formatIn(zone).format(ms);
  return html`<time datetime="${new Date(ms).toISOString()}" title="${utcText(ms)}">${local}</time> <span class="ago">(${fromNow(ms, now)})</span>`;
}
