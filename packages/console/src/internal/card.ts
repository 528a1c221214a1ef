import type { Html } from '../options.js';
import { html } from './html.js';
import { timeHtml } from './time.js';

type Value = unknown;
type Entries = Readonly<Record<string, Value>>;

const isObject = (value: Value): value is Entries =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `starts_at` → `Starts at`: a field name as a label. */
export function labelOf(key: string): string {
  const words = key.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A presented time (I20): `{ weekday, local, zone, utc, from_now? }`. */
const isPresentedTime = (value: Value): value is { utc: string; zone: string; local: string } =>
  isObject(value) &&
  typeof value.utc === 'string' &&
  typeof value.zone === 'string' &&
  typeof value.local === 'string' &&
  Number.isFinite(Date.parse(value.utc));

/** Money as the presenters give it: `{ amount, minor_units, currency, formatted }`. */
const isMoney = (value: Value): value is { formatted: string } =>
  isObject(value) && typeof value.currency === 'string' && typeof value.formatted === 'string';

/** Third-party text as `untrusted_text` presents it (I16). */
const isUntrusted = (value: Value): value is { untrusted_text: string } =>
  isObject(value) && typeof value.untrusted_text === 'string';

/**
 * A value as a person reads it: a presented time in its own zone with how far
 * from now, money as its formatted amount, third-party text marked as such, a list as a list, an object as
 * labelled rows, anything else as text. Every string is escaped and cleaned.
 */
export function cardHtml(value: Value, now: number): Html {
  if (isPresentedTime(value)) return timeHtml(Date.parse(value.utc), value.zone, now);
  if (isMoney(value)) return html`<span class="money">${value.formatted}</span>`;
  if (isUntrusted(value))
    return html`<blockquote class="third-party"><p class="note">Written by someone outside this product:</p><p class="text">${value.untrusted_text}</p></blockquote>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<span class="empty">none</span>`;
    return html`<ol class="items">${value.map((item) => html`<li>${cardHtml(item, now)}</li>`)}</ol>`;
  }
  if (isObject(value)) {
    const rows = Object.entries(value).filter(([, item]) => item !== undefined);
    return html`<dl class="card">${rows.map(([key, item]) => html`<dt>${labelOf(key)}</dt><dd>${cardHtml(item, now)}</dd>`)}</dl>`;
  }
  if (value === null) return html`<span class="empty">none</span>`;
  if (typeof value === 'boolean') return html`${value ? 'yes' : 'no'}`;
  return html`<span class="text">${String(value)}</span>`;
}
