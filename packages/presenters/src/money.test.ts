import { ToolError } from '@gatehousejs/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { knownCurrencies } from './internal/currencies.js';
import { currencyExponent, type MoneyInputValue, moneyOf, moneyToDecimal, parseMoney } from './money.js';

function refusal(input: MoneyInputValue, options = {}): string {
  try {
    parseMoney(input, options);
  } catch (error) {
    if (ToolError.is(error) && error.code === 'invalid_arguments') return error.message;
    throw error;
  }
  throw new Error('parseMoney accepted the input');
}

const currency = fc.constantFrom(...knownCurrencies());
const safeMinor = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });

describe('currencyExponent', () => {
  it('knows the ISO 4217 minor units, where Intl and ISO disagree too', () => {
    expect([currencyExponent('JPY'), currencyExponent('EUR'), currencyExponent('KWD')]).toEqual([0, 2, 3]);
    expect([currencyExponent('IQD'), currencyExponent('CLF'), currencyExponent('ISK')]).toEqual([3, 4, 0]);
    expect(() => currencyExponent('XAU')).toThrow(RangeError);
  });
});

describe('moneyOf', () => {
  it('builds money from integer minor units and refuses floats', () => {
    expect(moneyOf(1230, 'EUR')).toEqual({ minor: 1230, currency: 'EUR' });
    expect(moneyOf(-5n, 'JPY')).toEqual({ minor: -5, currency: 'JPY' });
    expect(() => moneyOf(12.3, 'EUR')).toThrow(/floats are refused/);
    expect(() => moneyOf(2n ** 60n, 'EUR')).toThrow(/safe integer range/);
    expect(() => moneyOf(1, 'eur')).toThrow(/Unknown ISO 4217 currency "eur"/);
  });
});

describe('moneyToDecimal', () => {
  it('writes exactly the currency’s decimals', () => {
    expect(moneyToDecimal(moneyOf(1230, 'EUR'))).toBe('12.30');
    expect(moneyToDecimal(moneyOf(-5, 'EUR'))).toBe('-0.05');
    expect(moneyToDecimal(moneyOf(1200, 'JPY'))).toBe('1200');
    expect(moneyToDecimal(moneyOf(1, 'KWD'))).toBe('0.001');
  });

  it('round-trips through parseMoney for every currency and safe amount (property)', () => {
    fc.assert(
      fc.property(safeMinor, currency, (minor, code) => {
        const money = moneyOf(minor, code);
        expect(
          parseMoney({ amount: moneyToDecimal(money), currency: code }, { allowNegative: true }),
        ).toEqual(money);
        expect(parseMoney({ minor_units: minor, currency: code }, { allowNegative: true })).toEqual(money);
      }),
    );
  });
});

describe('parseMoney', () => {
  it('reads decimal strings and integer minor units', () => {
    expect(parseMoney({ amount: '12.30', currency: 'EUR' })).toEqual({ minor: 1230, currency: 'EUR' });
    expect(parseMoney({ amount: '12.3', currency: 'eur' })).toEqual({ minor: 1230, currency: 'EUR' });
    expect(parseMoney({ amount: '1200', currency: 'JPY' })).toEqual({ minor: 1200, currency: 'JPY' });
    expect(parseMoney({ amount: '12.300', currency: 'EUR' })).toEqual({ minor: 1230, currency: 'EUR' });
    expect(parseMoney({ minor_units: 1230, currency: 'KWD' })).toEqual({ minor: 1230, currency: 'KWD' });
  });

  it('reads decimal strings exactly, with no float drift (property)', () => {
    const decimal = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 13n }), fc.integer({ min: 0, max: 2 }));
    fc.assert(
      fc.property(decimal, ([units, scale]) => {
        const text =
          scale === 0
            ? units.toString()
            : `${units / 10n ** BigInt(scale)}.${(units % 10n ** BigInt(scale)).toString().padStart(scale, '0')}`;
        expect(BigInt(parseMoney({ amount: text, currency: 'EUR' }).minor)).toBe(
          units * 10n ** BigInt(2 - scale),
        );
      }),
    );
  });

  it('refuses numbers as amount and fractional minor units', () => {
    expect(refusal({ amount: 12.3 as unknown as string, currency: 'EUR' })).toMatch(
      /^"amount" must be a decimal string/,
    );
    expect(refusal({ minor_units: 12.5, currency: 'EUR' })).toMatch(/^"minor_units" must be an integer/);
  });

  it('refuses more decimals than the currency has instead of rounding', () => {
    expect(refusal({ amount: '12.345', currency: 'EUR' })).toBe(
      'EUR has 2 decimal places; "12.345" has 3. Round it first, or send "minor_units".',
    );
    expect(refusal({ amount: '5.5', currency: 'JPY' })).toMatch(/^JPY has no decimal places/);
  });

  it('refuses malformed amounts, unknown currencies, both or neither forms, and negatives by default', () => {
    expect(refusal({ amount: '1,234.50', currency: 'EUR' })).toMatch(/is not a decimal number/);
    expect(refusal({ amount: '1e3', currency: 'EUR' })).toMatch(/is not a decimal number/);
    expect(refusal({ amount: '1', currency: 'EURO' })).toMatch(/^Unknown currency "EURO"/);
    expect(refusal({ amount: '1', minor_units: 100, currency: 'EUR' })).toBe(
      'Send "amount" or "minor_units", not both.',
    );
    expect(refusal({ currency: 'EUR' })).toMatch(/^Send "amount"/);
    expect(refusal({ amount: '-1.00', currency: 'EUR' })).toBe('The amount must not be negative.');
    expect(parseMoney({ amount: '-1.00', currency: 'EUR' }, { allowNegative: true }).minor).toBe(-100);
    expect(refusal({ amount: '1', currency: 'USD' }, { currencies: ['EUR'] })).toBe(
      'Currency USD is not accepted here; use EUR.',
    );
    expect(refusal({ amount: '99999999999999999', currency: 'EUR' })).toBe('The amount is too large.');
  });

  it('refuses an amount over 32 characters before parsing it, echoing at most 16', () => {
    expect(parseMoney({ amount: `${'0'.repeat(27)}12.30`, currency: 'EUR' })).toEqual({
      minor: 1230,
      currency: 'EUR',
    });
    expect(refusal({ amount: `${'0'.repeat(28)}12.30`, currency: 'EUR' })).toBe(
      '"amount" "0000000000000000…" is 33 characters long; an amount has at most 32. Send a decimal string such as "1234.50", or integer "minor_units".',
    );
    const huge = refusal({ amount: '9'.repeat(100 * 1024), currency: 'EUR' });
    expect(huge).toMatch(/^"amount" "9{16}…" is 102400 characters long; an amount has at most 32\./);
    expect(huge.length).toBeLessThan(200);
  });

  it('refuses a 100 KiB currency as unknown, echoing at most 16 characters', () => {
    const message = refusal({ amount: '1', currency: 'E'.repeat(100 * 1024) });
    expect(message).toMatch(/^Unknown currency "E{16}…"\. /);
    expect(message.length).toBeLessThan(200);
  });
});
