import { ConfigurationError } from '@gatehousejs/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { definePresenter } from './definePresenter.js';
import { field } from './field.js';
import { moneyOf, moneyToDecimal, parseMoney } from './money.js';
import { formatMoney, moneyField, presentMoney } from './presentMoney.js';

describe('formatMoney', () => {
  it('formats with the currency’s ISO decimals in the locale', () => {
    expect(formatMoney(moneyOf(1230, 'EUR'))).toBe('€12.30');
    expect(formatMoney(moneyOf(1230, 'EUR'), { locale: 'de-DE' })).toBe('12,30\u00A0€');
    expect(formatMoney(moneyOf(1200, 'JPY'))).toBe('¥1,200');
    expect(formatMoney(moneyOf(1234, 'IQD'))).toBe('IQD\u00A01.234');
  });

  it('formats exactly the stored amount, which parses back to it (property)', () => {
    const minor = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
    const currency = fc.constantFrom('EUR', 'USD', 'GBP', 'CHF', 'JPY', 'KWD', 'BHD', 'CLF');
    fc.assert(
      fc.property(minor, currency, (units, code) => {
        const money = moneyOf(units, code);
        const digits = formatMoney(money).replace(/[^\d.-]/g, '');
        expect(digits).toBe(moneyToDecimal(money));
        expect(parseMoney({ amount: digits, currency: code }, { allowNegative: true })).toEqual(money);
      }),
    );
  });

  it('formats amounts beyond float precision exactly', () => {
    expect(formatMoney(moneyOf(Number.MAX_SAFE_INTEGER, 'USD'))).toBe('$90,071,992,547,409.91');
  });
});

describe('presentMoney', () => {
  it('shows decimal amount, minor units, currency and formatted string', () => {
    expect(presentMoney(moneyOf(-1230, 'EUR'))).toEqual({
      amount: '-12.30',
      minor_units: -1230,
      currency: 'EUR',
      formatted: '-€12.30',
    });
  });
});

describe('moneyField', () => {
  const invoicePresenter = definePresenter({
    versioned: true,
    fields: { total: field.money({ locale: 'de-DE' }), tax: moneyField().nullable() },
  });

  it('presents money inside a field list and versions its minor units', () => {
    const presented = invoicePresenter.present(
      { total: moneyOf(1230, 'EUR'), tax: null },
      { now: new Date() },
    );
    expect(presented.total).toEqual({
      amount: '12.30',
      minor_units: 1230,
      currency: 'EUR',
      formatted: '12,30\u00A0€',
    });
    expect(presented.tax).toBeNull();
    expect(invoicePresenter.versionOf({ total: moneyOf(1231, 'EUR') })).not.toBe(presented.version);
  });

  it('refuses a float or unknown currency in the record and a bad locale at setup', () => {
    const float = { total: { minor: 12.3, currency: 'EUR' } };
    expect(() => invoicePresenter.present(float, { now: new Date() })).toThrow(
      /^record\.total: expected Money/,
    );
    expect(() => moneyField({ locale: '??' })).toThrow(ConfigurationError);
  });
});
