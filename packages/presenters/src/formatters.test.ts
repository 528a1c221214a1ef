import { boundedMemo, FORMATTER_LIMIT } from '@gatehousejs/core/internal';
import { Temporal } from 'temporal-polyfill';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveZone } from './internal/zones.js';
import { moneyOf } from './money.js';
import { formatMoney, presentMoney } from './presentMoney.js';
import { presentInstant } from './presentTime.js';

/** Counts the formatters of `kind` built while the test runs, by wrapping its constructor. */
function countBuilt(kind: 'DateTimeFormat' | 'NumberFormat' | 'RelativeTimeFormat') {
  const original = Intl[kind];
  const counter = { built: 0, restore: () => Object.assign(Intl, { [kind]: original }) };
  Object.assign(Intl, {
    [kind]: new Proxy(original, {
      construct(target, args, newTarget) {
        counter.built++;
        return Reflect.construct(target, args, newTarget);
      },
      apply(target, self, args) {
        counter.built++;
        return Reflect.apply(target, self, args);
      },
    }),
  });
  return counter;
}

const restores: (() => void)[] = [];
afterEach(() => {
  for (const restore of restores.splice(0)) restore();
});

describe('formatters', () => {
  it('builds one formatter per locale and currency, not one per value', () => {
    // warm: the first use of each key builds it
    presentMoney(moneyOf(1, 'EUR'));
    presentMoney(moneyOf(1, 'JPY'), { locale: 'de-DE' });
    const numbers = countBuilt('NumberFormat');
    restores.push(numbers.restore);
    for (let i = 0; i < 1_000; i++) {
      presentMoney(moneyOf(i, 'EUR'));
      formatMoney(moneyOf(i, 'JPY'), { locale: 'de-DE' });
    }
    expect(numbers.built).toBe(0);
    expect(formatMoney(moneyOf(1230, 'EUR'), { locale: 'de-DE' })).toBe('12,30\u00a0€');
    expect(formatMoney(moneyOf(1230, 'JPY'))).toBe('¥1,230');
  });

  it('presents a thousand times in one zone and locale without building a formatter', () => {
    const now = new Date('2026-03-27T07:30:00Z');
    const at = (i: number) => Temporal.Instant.fromEpochMilliseconds(now.getTime() + i * 3_600_000);
    presentInstant(at(1), { now }, { zone: 'Europe/Berlin' });
    presentInstant(at(0), { now }, { zone: 'Europe/Berlin' });
    const dates = countBuilt('DateTimeFormat');
    const relative = countBuilt('RelativeTimeFormat');
    restores.push(dates.restore, relative.restore);
    for (let i = 0; i < 1_000; i++) presentInstant(at(i), { now }, { zone: 'Europe/Berlin' });
    expect(relative.built).toBe(0);
    expect(dates.built).toBe(0);
    expect(presentInstant(at(72), { now }, { zone: 'Europe/Berlin' })).toMatchObject({
      weekday: 'Monday',
      from_now: 'in 3 days',
    });
  });

  it('keeps at most its limit of values, forgetting the oldest, and caches nothing when building throws', () => {
    const built: string[] = [];
    const memo = boundedMemo(2, (key) => {
      if (key === 'bad') throw new RangeError('bad key');
      built.push(key);
      return { key };
    });
    const a = memo('a');
    expect(memo('a')).toBe(a);
    memo('b');
    memo('c'); // forgets a
    expect(memo('c')).toEqual({ key: 'c' });
    expect(memo('a')).not.toBe(a);
    expect(built).toEqual(['a', 'b', 'c', 'a']);
    expect(() => memo('bad')).toThrow(RangeError);
    expect(() => memo('bad')).toThrow(RangeError);
    expect(() => boundedMemo(0, String)).toThrow(RangeError);
  });

  it('checks a zone and a locale once, not per value, and keeps a bounded number of zone outcomes', () => {
    const now = new Date('2026-03-27T07:30:00Z');
    const at = Temporal.Instant.fromEpochMilliseconds(now.getTime());
    presentInstant(at, { now }, { zone: 'Asia/Tokyo', locale: 'de-DE' });
    const original = Intl.getCanonicalLocales;
    let checked = 0;
    Intl.getCanonicalLocales = (locales) => {
      checked++;
      return original(locales);
    };
    restores.push(() => {
      Intl.getCanonicalLocales = original;
    });
    for (let i = 0; i < 100; i++) presentInstant(at, { now }, { zone: 'Asia/Tokyo', locale: 'de-DE' });
    expect(checked).toBe(0);
    expect(() => presentInstant(at, { now }, { zone: 'Asia/Tokyo', locale: 'not a locale!' })).toThrow(
      /not a valid locale/,
    );

    const refused = resolveZone('Europe/Berlinn');
    expect(refused).toMatchObject({ ok: false, message: expect.stringContaining('Europe/Berlin') });
    expect(resolveZone('Europe/Berlinn')).toBe(refused);
    expect(resolveZone('europe/berlin')).toMatchObject({ ok: true, value: 'Europe/Berlin' });
    for (let i = 0; i < FORMATTER_LIMIT; i++) resolveZone(`Nowhere/Town_${i}`);
    const again = resolveZone('Europe/Berlinn');
    expect(again).not.toBe(refused);
    expect(again).toEqual(refused);
  });
});
