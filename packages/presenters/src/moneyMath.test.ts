import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moneyOf, moneyToDecimal, parseMoney } from './money.js';
import { allocateMoney, multiplyMoney, percentOf, sumMoney } from './moneyMath.js';

const eur = (minor: number) => moneyOf(minor, 'EUR');

describe('sumMoney', () => {
  it('adds in minor units, so ten times 0.10 is exactly 1.00', () => {
    const dimes = Array.from({ length: 10 }, () => parseMoney({ amount: '0.10', currency: 'EUR' }));
    expect(moneyToDecimal(sumMoney(dimes, 'EUR'))).toBe('1.00');
    expect(sumMoney([], 'JPY')).toEqual({ minor: 0, currency: 'JPY' });
  });

  it('refuses mixed currencies and overflow', () => {
    expect(() => sumMoney([eur(1), moneyOf(1, 'USD')], 'EUR')).toThrow(
      'sumMoney: cannot add USD to a EUR total.',
    );
    expect(() => sumMoney([eur(Number.MAX_SAFE_INTEGER), eur(1)], 'EUR')).toThrow(/safe integer range/);
  });

  it('matches exact decimal arithmetic for any list of amounts (property)', () => {
    const cents = fc.array(fc.integer({ min: -10_000_000, max: 10_000_000 }), { maxLength: 50 });
    fc.assert(
      fc.property(cents, (list) => {
        const amounts = list.map((minor) =>
          parseMoney({ amount: moneyToDecimal(eur(minor)), currency: 'EUR' }, { allowNegative: true }),
        );
        const exact = list.reduce((acc, minor) => acc + BigInt(minor), 0n);
        expect(BigInt(sumMoney(amounts, 'EUR').minor)).toBe(exact);
      }),
    );
  });
});

describe('multiplyMoney', () => {
  it('rounds half-even by default and half-up (away from zero) on request', () => {
    expect(multiplyMoney(eur(1005), '0.5').minor).toBe(502);
    expect(multiplyMoney(eur(1015), '0.5').minor).toBe(508);
    expect(multiplyMoney(eur(1005), '0.5', { rounding: 'half-up' }).minor).toBe(503);
    expect(multiplyMoney(eur(-1005), '0.5', { rounding: 'half-up' }).minor).toBe(-503);
    expect(multiplyMoney(eur(-1005), '0.5').minor).toBe(-502);
    expect(multiplyMoney(eur(1230), 3).minor).toBe(3690);
  });

  it('refuses fractional numbers as factors and non-decimal strings', () => {
    expect(() => multiplyMoney(eur(100), 1.19)).toThrow(/fractional numbers are refused/);
    expect(() => multiplyMoney(eur(100), '1,19')).toThrow(/is not a decimal string/);
  });
});

describe('percentOf', () => {
  it('computes tax in minor units with one explicit rounding', () => {
    expect(percentOf(eur(1230), '19')).toEqual({ minor: 234, currency: 'EUR' });
    expect(percentOf(eur(250), '7')).toEqual({ minor: 18, currency: 'EUR' });
    expect(percentOf(eur(250), '7', { rounding: 'half-up' })).toEqual({ minor: 18, currency: 'EUR' });
    expect(percentOf(eur(50), '5')).toEqual({ minor: 2, currency: 'EUR' });
    expect(percentOf(eur(50), '5', { rounding: 'half-up' })).toEqual({ minor: 3, currency: 'EUR' });
    expect(percentOf(moneyOf(1000, 'JPY'), '7.5').minor).toBe(75);
  });
});

describe('allocateMoney', () => {
  it('splits a total by ratios and gives leftover units to the largest remainders', () => {
    expect(allocateMoney(eur(1000), [1, 1, 1]).map((part) => part.minor)).toEqual([334, 333, 333]);
    expect(allocateMoney(eur(100), ['0.7', '0.3']).map((part) => part.minor)).toEqual([70, 30]);
    expect(allocateMoney(eur(5), [1, 0, 1]).map((part) => part.minor)).toEqual([3, 0, 2]);
    expect(allocateMoney(eur(-1000), [1, 1, 1]).map((part) => part.minor)).toEqual([-334, -333, -333]);
  });

  it('refuses no ratios, negative ratios, float ratios and all-zero ratios', () => {
    expect(() => allocateMoney(eur(1), [])).toThrow(/at least one ratio/);
    expect(() => allocateMoney(eur(1), [1, -1])).toThrow(/must not be negative/);
    expect(() => allocateMoney(eur(1), [0.5, 0.5])).toThrow(/fractional numbers are refused/);
    expect(() => allocateMoney(eur(1), [0, 0])).toThrow(/above zero/);
  });

  it('always returns parts that sum to the total, each within one unit of its exact share (property)', () => {
    const total = fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 });
    const ratios = fc
      .array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 30 })
      .filter((list) => list.some((ratio) => ratio > 0));
    fc.assert(
      fc.property(total, ratios, (minor, weights) => {
        const parts = allocateMoney(eur(minor), weights);
        expect(parts).toHaveLength(weights.length);
        expect(sumMoney(parts, 'EUR').minor).toBe(minor);
        const sum = weights.reduce((acc, weight) => acc + weight, 0);
        parts.forEach((part, index) => {
          const exact = (BigInt(minor) * BigInt(weights[index] ?? 0)) / BigInt(sum);
          const gap = BigInt(part.minor) - exact;
          expect(gap >= -1n && gap <= 1n).toBe(true);
          if (weights[index] === 0) expect(part.minor).toBe(0);
        });
      }),
    );
  });
});
