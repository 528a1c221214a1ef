import { fromNow } from '@gatehousejs/core/internal';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { instantField, presentInstant } from '../presentTime.js';
import { floorMs, instantString, instantTexts } from './instantText.js';

/** Zones with DST both ways, half- and quarter-hour offsets, none, fixed offsets, seconds-offset history (LMT), case not canonical. */
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'europe/berlin',
  'America/New_York',
  'America/St_Johns',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Africa/Casablanca',
  'America/Sao_Paulo',
  'Europe/Dublin',
  'Asia/Tokyo',
  'Africa/Monrovia',
  '+05:30',
  '-03:00',
];
const NS_PER_MS = 1_000_000n;
/** Epoch nanoseconds over Temporal's whole range, with extra weight on the years people book in. */
const epochNs = fc.oneof(
  fc.bigInt({ min: -8_640_000_000_000_000_000_000n, max: 8_640_000_000_000_000_000_000n }),
  fc
    .integer({ min: Date.UTC(1850, 0, 1), max: Date.UTC(2100, 0, 1) })
    .chain((ms) => fc.bigInt({ min: 0n, max: 999_999n }).map((sub) => BigInt(ms) * NS_PER_MS + sub)),
  fc
    .integer({ min: Date.UTC(2020, 0, 1) / 60_000, max: Date.UTC(2040, 0, 1) / 60_000 })
    .map((minutes) => BigInt(minutes) * 60_000n * NS_PER_MS),
);

/** What Temporal itself renders, the texts the fast path must match. */
function temporalTexts(ns: bigint, zone: string) {
  const zoned = new Temporal.ZonedDateTime(ns, zone);
  return {
    zone: zoned.timeZoneId,
    ms: zoned.epochMilliseconds,
    dayOfWeek: zoned.dayOfWeek,
    local: zoned.toString({ smallestUnit: 'second', timeZoneName: 'never' }),
    utc: zoned.toInstant().toString({ smallestUnit: 'second' }),
  };
}

describe('instantTexts', () => {
  it('gives Temporal’s texts for any instant in any zone, or leaves the value to Temporal', () => {
    let fast = 0;
    fc.assert(
      fc.property(epochNs, fc.constantFrom(...ZONES), (ns, zone) => {
        const texts = instantTexts(ns, zone);
        if (texts === undefined) return;
        fast++;
        expect(texts).toEqual(temporalTexts(ns, zone));
      }),
      { numRuns: 1000 },
    );
    expect(fast).toBeGreaterThan(300); // the common case does take the fast path
  });

  it('matches Temporal at and around every transition of a year, from any order of first sight', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/St_Johns']) {
      let at: Temporal.ZonedDateTime | null =
        Temporal.Instant.from('2025-01-01T00:00:00Z').toZonedDateTimeISO(zone);
      const edges: bigint[] = [];
      for (let i = 0; i < 4 && at; i++) {
        at = at.getTimeZoneTransition('next');
        if (at) edges.push(at.epochNanoseconds);
      }
      const probes = edges.flatMap((edge) => [
        edge - 1n,
        edge,
        edge + 1n,
        edge - 60_000_000_000n,
        edge + 3_600_000_000_000n,
      ]);
      for (const order of [probes, [...probes].reverse()]) {
        for (const ns of order) expect(instantTexts(ns, zone)).toEqual(temporalTexts(ns, zone));
      }
    }
  });

  it('leaves years outside 1000–9999 and offsets with seconds to Temporal', () => {
    expect(instantTexts(BigInt(Date.UTC(999, 11, 31, 23)) * NS_PER_MS, 'UTC')).toBeUndefined();
    expect(instantTexts(BigInt(Date.UTC(10_000, 0, 1)) * NS_PER_MS, 'UTC')).toBeUndefined();
    // Monrovia kept −0:44:30 until 1972
    expect(instantTexts(BigInt(Date.UTC(1960, 0, 1)) * NS_PER_MS, 'Africa/Monrovia')).toBeUndefined();
  });

  it('throws Temporal’s RangeError for an unknown zone, as building the value would', () => {
    expect(() => instantTexts(0n, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});

describe('instantString and floorMs', () => {
  it('give Temporal’s Instant#toString() and epochMilliseconds', () => {
    fc.assert(
      fc.property(epochNs, (ns) => {
        const instant = new Temporal.Instant(ns);
        expect(floorMs(ns)).toBe(instant.epochMilliseconds);
        const text = instantString(ns);
        if (text !== undefined) expect(text).toBe(instant.toString());
      }),
      { numRuns: 1000 },
    );
  });
});

describe('presentInstant and instantField on both paths', () => {
  const now = new Date('2026-03-27T07:30:00Z');
  it('present and version a value the same whichever path renders it', () => {
    const field = instantField({ zone: 'Europe/Berlin', locale: 'de-DE' });
    fc.assert(
      fc.property(epochNs, (ns) => {
        const zoned = new Temporal.ZonedDateTime(ns, 'Europe/Berlin');
        expect(presentInstant(zoned, { now }, { locale: 'de-DE' })).toEqual({
          weekday: new Intl.DateTimeFormat('de-DE', { weekday: 'long', timeZone: 'UTC' }).format(
            Date.UTC(2024, 0, zoned.dayOfWeek),
          ),
          local: zoned.toString({ smallestUnit: 'second', timeZoneName: 'never' }),
          zone: 'Europe/Berlin',
          utc: zoned.toInstant().toString({ smallestUnit: 'second' }),
          from_now: fromNow(zoned.epochMilliseconds, now.getTime(), 'de-DE'),
        });
        expect(field.state(zoned, 'at')).toEqual({
          utc: zoned.toInstant().toString(),
          zone: 'Europe/Berlin',
        });
      }),
      { numRuns: 200 },
    );
  });
});
