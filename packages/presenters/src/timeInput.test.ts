import { ConfigurationError, ToolError } from '@gatehousejs/core';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { isOffsetOnly, parseTime, type TimeInputValue, timeInput, withDefaultZone } from './timeInput.js';

function refusal(input: TimeInputValue): string {
  try {
    parseTime(input);
  } catch (error) {
    if (ToolError.is(error) && error.code === 'invalid_arguments') return error.message;
    throw error;
  }
  throw new Error('parseTime accepted the input');
}

describe('parseTime', () => {
  it('accepts a local time with an IANA zone in object, bracket and spaced forms', () => {
    const expected = '2026-03-30T09:30:00+02:00[Europe/Berlin]';
    expect(parseTime({ local: '2026-03-30T09:30', zone: 'Europe/Berlin' }).toString()).toBe(expected);
    expect(parseTime('2026-03-30T09:30[Europe/Berlin]').toString()).toBe(expected);
    expect(parseTime('2026-03-30 09:30 Europe/Berlin').toString()).toBe(expected);
    expect(parseTime({ local: '2026-03-30T09:30', zone: 'europe/berlin' }).timeZoneId).toBe('Europe/Berlin');
  });

  it('accepts ISO 8601 with an offset and keeps the offset as the zone', () => {
    const zoned = parseTime('2026-03-29T02:30:00+02:00');
    expect(zoned.toInstant().toString()).toBe('2026-03-29T00:30:00Z');
    expect(zoned.timeZoneId).toBe('+02:00');
    expect(parseTime('2026-03-29T00:30:00Z').timeZoneId).toBe('+00:00');
    expect(parseTime('2026-03-29T00:30:00Z[UTC]').timeZoneId).toBe('UTC');
  });

  it('rejects 2026-03-29 02:30 Europe/Berlin (DST gap) with the times around the gap', () => {
    const message = refusal({ local: '2026-03-29T02:30', zone: 'Europe/Berlin' });
    expect(message).toBe(
      '"2026-03-29T02:30" does not exist in Europe/Berlin: on Sunday 2026-03-29 clocks jump from 02:00 (+01:00) to 03:00 (+02:00). Send a time that exists, e.g. 2026-03-29T01:59:00+01:00[Europe/Berlin] (just before the change) or 2026-03-29T03:00:00+02:00[Europe/Berlin] (just after).',
    );
  });

  it('rejects 2026-10-25 02:30 Europe/Berlin (DST overlap) listing +02:00 and +01:00', () => {
    const message = refusal('2026-10-25 02:30 Europe/Berlin');
    expect(message).toBe(
      '"2026-10-25T02:30" happens twice in Europe/Berlin: on Sunday 2026-10-25 clocks go back from 03:00 (+02:00) to 02:00 (+01:00). Say which one with its offset: 2026-10-25T02:30:00+02:00[Europe/Berlin] (first, +02:00) or 2026-10-25T02:30:00+01:00[Europe/Berlin] (second, +01:00).',
    );
  });

  it('accepts an overlapping time once its offset says which one', () => {
    const second = parseTime('2026-10-25T02:30:00+01:00[Europe/Berlin]');
    expect(second.toInstant().toString()).toBe('2026-10-25T01:30:00Z');
    expect(refusal('2026-10-25T02:30:00+03:00[Europe/Berlin]')).toBe(
      '"2026-10-25T02:30:00" in Europe/Berlin has offset +02:00 or +01:00, not +03:00. Fix the offset or leave it out.',
    );
  });

  it('rejects a bare local time, naming the two accepted forms', () => {
    const message = refusal('2026-03-29T02:30');
    expect(message).toMatch(/^"2026-03-29T02:30" has no zone or offset/);
    expect(message).toContain('a local time with an IANA zone');
    expect(message).toContain('ISO 8601 with an offset ("2026-03-29T09:30:00+02:00")');
  });

  it('rejects an unknown zone with close matches and the Region/City form', () => {
    expect(refusal({ local: '2026-03-30T09:30', zone: 'Europe/Berln' })).toBe(
      'Unknown time zone "Europe/Berln". Did you mean Europe/Berlin? Zones are IANA names of the form Region/City, such as "Europe/Berlin" or "America/New_York".',
    );
    expect(refusal({ local: '2026-03-30T09:30', zone: 'Berlin' })).toContain('Did you mean Europe/Berlin?');
    expect(refusal({ local: '2026-03-30T09:30', zone: 'Mars/Olympus' })).toMatch(/of the form Region\/City/);
  });

  it('rejects an offset in the zone slot, an impossible date, a date alone and junk', () => {
    expect(refusal({ local: '2026-03-30T09:30', zone: '+02:00' })).toMatch(/is an offset, not a time zone/);
    expect(refusal({ local: '2026-02-30T09:30', zone: 'Europe/Berlin' })).toBe(
      '"2026-02-30T09:30" is not a calendar date-time; check the month, day and hour.',
    );
    expect(refusal('2026-03-30')).toMatch(/^A date alone is not a time\. Send either/);
    expect(refusal('next tuesday')).toMatch(/^Not a date-time\. Send either/);
    expect(refusal({ local: '2026-03-30T09:30+02:00', zone: 'Europe/Berlin' })).toMatch(
      /without offset or zone/,
    );
  });
});

describe('parseTime caps', () => {
  const huge = 'A'.repeat(100 * 1024);

  it('refuses a 100 KiB zone name as invalid_arguments before reading it, in every form', () => {
    for (const input of [
      { local: '2026-03-30T09:30', zone: huge },
      { local: '2026-03-30T09:30', zone: `Europe/${huge}` },
    ]) {
      const message = refusal(input);
      expect(message).toMatch(
        /^The time zone "A{0,32}.*" is \d+ characters long; zone names have at most 64\./,
      );
      expect(message.length).toBeLessThan(400);
    }
    expect(refusal(`2026-03-30T09:30[${huge}]`)).toMatch(
      /^The time .* characters long; a time has at most 64\./,
    );
    expect(refusal(`2026-03-30 09:30 ${huge}`)).toMatch(/a time has at most 64\./);
  });

  it('refuses a time string or local part over 64 characters, echoing at most 32 of them', () => {
    const long = `2026-03-30T09:30:00+02:00${' '.repeat(40)}`;
    expect(refusal(long)).toMatch(/^The time "2026-03-30T09:30:00\+02:00 {7}…" is 65 characters long/);
    expect(refusal({ local: `2026-03-30T09:30${'0'.repeat(49)}`, zone: 'Europe/Berlin' })).toMatch(
      /^"local" ".{32}…" is 65 characters long; a time has at most 64\./,
    );
    const longest = '2026-03-30T09:30:00.123-03:00[America/Argentina/ComodRivadavia]';
    expect(parseTime(longest).toInstant().toString()).toBe('2026-03-30T12:30:00.123Z');
  });

  it('refuses zone names with characters outside A-Z a-z 0-9 _ + - / and offers close matches', () => {
    expect(refusal({ local: '2026-03-30T09:30', zone: 'New York' })).toBe(
      'Unknown time zone "New York". Did you mean America/New_York? Zones are IANA names of the form Region/City, such as "Europe/Berlin" or "America/New_York".',
    );
    expect(refusal({ local: '2026-03-30T09:30', zone: ' Europe/Berlin' })).toContain(
      'Unknown time zone " Europe/Berlin". Did you mean Europe/Berlin?',
    );
    expect(refusal({ local: '2026-03-30T09:30', zone: 'Europe/Berlin\u0000' })).toMatch(/^Unknown time zone/);
    expect(parseTime({ local: '2026-03-30T09:30', zone: 'Etc/GMT+2' }).offset).toBe('-02:00');
    expect(parseTime({ local: '2026-03-30T09:30', zone: 'America/Port-au-Prince' }).timeZoneId).toBe(
      'America/Port-au-Prince',
    );
  });

  it('echoes control characters escaped and still clipped', () => {
    const message = refusal({ local: '\u0000'.repeat(60), zone: 'Europe/Berlin' });
    expect(message).toMatch(/^"local" "(\\u0000){10}…" is not a date-time\./);
  });
});

describe('withDefaultZone', () => {
  it('moves a time sent with only an offset into the default zone, at the same instant', () => {
    const sent = parseTime('2026-03-30T09:30:00+02:00');
    expect(isOffsetOnly(sent)).toBe(true);
    const settled = withDefaultZone(sent, 'Europe/Berlin');
    expect(settled.toString()).toBe('2026-03-30T09:30:00+02:00[Europe/Berlin]');
    expect(settled.epochMilliseconds).toBe(sent.epochMilliseconds);
    expect(isOffsetOnly(settled)).toBe(false);
  });

  it('keeps the instant when the offset sent is not the zone offset at that instant', () => {
    const sent = parseTime('2026-03-30T09:30:00+05:00');
    const settled = withDefaultZone(sent, 'europe/berlin');
    expect(settled.timeZoneId).toBe('Europe/Berlin');
    expect(settled.toInstant().toString()).toBe('2026-03-30T04:30:00Z');
    expect(settled.toString()).toBe('2026-03-30T06:30:00+02:00[Europe/Berlin]');
    expect(withDefaultZone(parseTime('2026-03-30T07:30:00Z'), 'Europe/Berlin').toString()).toBe(
      '2026-03-30T09:30:00+02:00[Europe/Berlin]',
    );
  });

  it('keeps a zone the caller named', () => {
    const named = parseTime({ local: '2026-03-30T09:30', zone: 'America/New_York' });
    expect(isOffsetOnly(named)).toBe(false);
    expect(withDefaultZone(named, 'Europe/Berlin')).toBe(named);
    const utc = parseTime('2026-03-30T07:30[UTC]');
    expect(withDefaultZone(utc, 'Europe/Berlin').timeZoneId).toBe('UTC');
    const stored = Temporal.Instant.from('2026-03-30T07:30:00Z').toZonedDateTimeISO('Asia/Tokyo');
    expect(withDefaultZone(stored, 'Europe/Berlin').timeZoneId).toBe('Asia/Tokyo');
  });

  it('refuses an unknown default zone as a configuration error', () => {
    expect(() => withDefaultZone(parseTime('2026-03-30T09:30:00+02:00'), 'Europe/Berln')).toThrow(
      ConfigurationError,
    );
  });
});

describe('timeInput', () => {
  const args = z.object({ starts_at: timeInput() }).strict();

  it('outputs a ZonedDateTime for an accepted form', () => {
    const parsed = args.parse({ starts_at: { local: '2026-03-30T09:30', zone: 'Europe/Berlin' } });
    expect(parsed.starts_at.epochMilliseconds).toBe(Date.UTC(2026, 2, 30, 7, 30));
    expectTypeOf(parsed.starts_at).toEqualTypeOf<Temporal.ZonedDateTime>();
  });

  it('reports the same messages as parseTime as zod issues', () => {
    const gap = args.safeParse({ starts_at: '2026-03-29T02:30[Europe/Berlin]' });
    expect(gap.success).toBe(false);
    expect(gap.error?.issues[0]?.message).toContain('2026-03-29T01:59:00+01:00');
    expect(gap.error?.issues[0]?.path).toEqual(['starts_at']);
    const overlap = args.safeParse({ starts_at: { local: '2026-10-25T02:30', zone: 'Europe/Berlin' } });
    expect(overlap.error?.issues[0]?.message).toMatch(/\+02:00.*\+01:00/);
  });

  it('explains a wrong shape with the accepted forms', () => {
    const missingZone = args.safeParse({ starts_at: { local: '2026-03-30T09:30' } });
    expect(missingZone.error?.issues[0]?.message).toMatch(/^"zone" must be an IANA zone/);
    const number = args.safeParse({ starts_at: 1774855800000 });
    expect(number.error?.issues[0]?.message).toMatch(/^Expected a date-time\. Send either/);
  });

  it('describes the accepted forms as JSON Schema for callers, with their caps', () => {
    expect(z.toJSONSchema(timeInput(), { io: 'input' })).toMatchObject({
      anyOf: [
        { type: 'string', maxLength: 64 },
        {
          type: 'object',
          properties: {
            local: { type: 'string', maxLength: 64 },
            zone: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9_+\\-/]+$' },
          },
          required: ['local', 'zone'],
          additionalProperties: false,
        },
      ],
    });
  });

  it('refuses a 100 KiB zone, time or local with the capped message of parseTime', () => {
    const huge = 'A'.repeat(100 * 1024);
    const cases = [
      { starts_at: { local: '2026-03-30T09:30', zone: huge } },
      { starts_at: `2026-03-30T09:30[${huge}]` },
      { starts_at: { local: huge, zone: 'Europe/Berlin' } },
    ];
    const found = cases.map((input) => args.safeParse(input).error?.issues.map((issue) => issue.message));
    expect(found[0]).toEqual([expect.stringMatching(/^The time zone "A{32}…" is 102400 characters long/)]);
    expect(found[1]).toEqual([expect.stringMatching(/^The time "2026-03-30T09:30\[A{15}…" is 102418 /)]);
    expect(found[2]).toEqual([expect.stringMatching(/^"local" "A{32}…" is 102400 characters long/)]);
    for (const messages of found) expect(messages?.[0]?.length).toBeLessThan(400);
  });

  it('explains a zone outside the allowed characters like parseTime', () => {
    const offset = args.safeParse({ starts_at: { local: '2026-03-30T09:30', zone: '+02:00' } });
    expect(offset.error?.issues[0]?.message).toMatch(/^"\+02:00" is an offset, not a time zone/);
    const spaced = args.safeParse({ starts_at: { local: '2026-03-30T09:30', zone: 'New York' } });
    expect(spaced.error?.issues.map((issue) => issue.message)).toEqual([
      expect.stringMatching(/^Unknown time zone "New York"\. Did you mean America\/New_York\?/),
    ]);
  });
});
