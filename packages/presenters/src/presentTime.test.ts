import { ConfigurationError } from '@gatehousejs/core';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { definePresenter } from './definePresenter.js';
import { field } from './field.js';
import { instantField, presentInstant } from './presentTime.js';

const now = new Date('2026-03-27T07:30:00Z');
const at = (iso: string) => Temporal.Instant.from(iso);

describe('presentInstant', () => {
  it('shows weekday, local time with offset, zone, UTC and distance from now', () => {
    expect(presentInstant(at('2026-03-30T07:30:00Z'), { now }, { zone: 'Europe/Berlin' })).toEqual({
      weekday: 'Monday',
      local: '2026-03-30T09:30:00+02:00',
      zone: 'Europe/Berlin',
      utc: '2026-03-30T07:30:00Z',
      from_now: 'in 3 days',
    });
  });

  it('computes the distance from env.now, past and future', () => {
    const cases: [string, string][] = [
      ['2026-03-27T05:30:00Z', '2 hours ago'],
      ['2026-03-27T07:30:00Z', 'now'],
      ['2026-03-27T07:30:20Z', 'in 20 seconds'],
      ['2026-03-27T07:45:00Z', 'in 15 minutes'],
      ['2026-03-26T07:30:00Z', '1 day ago'],
      ['2026-06-27T07:30:00Z', 'in 3 months'],
      ['2028-03-27T07:30:00Z', 'in 2 years'],
    ];
    for (const [iso, expected] of cases) expect(presentInstant(at(iso), { now }).from_now).toBe(expected);
  });

  it('uses the value’s own zone for a ZonedDateTime and UTC for an Instant or Date', () => {
    const zoned = at('2026-03-30T07:30:00Z').toZonedDateTimeISO('America/New_York');
    expect(presentInstant(zoned, { now })).toMatchObject({
      zone: 'America/New_York',
      local: '2026-03-30T03:30:00-04:00',
    });
    expect(presentInstant(new Date('2026-03-30T07:30:00Z'), { now })).toMatchObject({
      zone: 'UTC',
      local: '2026-03-30T07:30:00+00:00',
      weekday: 'Monday',
    });
  });

  it('speaks the locale it is given', () => {
    const shown = presentInstant(
      at('2026-03-30T07:30:00Z'),
      { now },
      { zone: 'Europe/Berlin', locale: 'de-DE' },
    );
    expect(shown).toMatchObject({ weekday: 'Montag', from_now: 'in 3 Tagen' });
  });

  it('refuses an unknown zone or locale at setup and an invalid Date when presenting', () => {
    expect(() => presentInstant(at('2026-03-30T07:30:00Z'), { now }, { zone: 'Europe/Berln' })).toThrow(
      ConfigurationError,
    );
    expect(() => instantField({ zone: 'Nowhere' })).toThrow(/field\.instant: Unknown time zone "Nowhere"/);
    expect(() => instantField({ locale: 'not a locale' })).toThrow(/not a valid locale tag/);
    expect(() => presentInstant(new Date(Number.NaN), { now })).toThrow('value: the Date is invalid.');
  });
});

describe('instantField', () => {
  const presenter = definePresenter({
    versioned: true,
    fields: { starts_at: field.instant({ zone: 'Europe/Berlin' }) },
  });

  it('presents through a field list with the presenter’s clock', () => {
    const presented = presenter.present({ starts_at: at('2026-03-30T07:30:00Z') }, { now });
    expect(presented.starts_at.from_now).toBe('in 3 days');
    expect(presenter.outputSchema).toMatchObject({
      properties: { starts_at: { required: ['weekday', 'local', 'zone', 'utc', 'from_now'] } },
    });
  });

  it('keeps the version as time passes and changes it when the instant moves', () => {
    const record = { starts_at: at('2026-03-30T07:30:00Z') };
    const first = presenter.present(record, { now }).version;
    expect(presenter.present(record, { now: new Date('2026-03-29T00:00:00Z') }).version).toBe(first);
    expect(presenter.versionOf({ starts_at: at('2026-03-30T07:30:00.001Z') })).not.toBe(first);
  });

  it('refuses a value that is not an instant', () => {
    const value = { starts_at: '2026-03-30' } as unknown as { starts_at: Date };
    expect(() => presenter.present(value, { now })).toThrow(
      /^record\.starts_at: expected a Temporal\.Instant/,
    );
  });
});
