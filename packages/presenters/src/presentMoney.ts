import type { JsonSchema } from '@gatehousejs/core';
import { ConfigurationError } from '@gatehousejs/core';
import { boundedMemo, FORMATTER_LIMIT } from '@gatehousejs/core/internal';
import type { Field } from './fieldTypes.js';
import { exponentOf } from './internal/currencies.js';
import { makeField, typeName } from './internal/makeField.js';
import { currencyExponent, type Money, moneyToDecimal } from './money.js';

/** Money as it leaves the server (I20). */
export type PresentedMoney = {
  /** Decimal string in major units with the currency's decimals, e.g. `12.30`. */
  readonly amount: string;
  /** Integer minor units, e.g. `1230`. */
  readonly minor_units: number;
  /** ISO 4217 code. */
  readonly currency: string;
  /** Formatted for people in the locale, e.g. `€12.30`. */
  readonly formatted: string;
};

/** Options of {@link formatMoney}, {@link presentMoney} and `field.money()`. */
export interface MoneyFormatOptions {
  /** Locale of `formatted`; default `en-US`. */
  readonly locale?: string;
}

/** The JSON Schema of {@link PresentedMoney}. */
export const PRESENTED_MONEY_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    amount: { type: 'string', description: 'Decimal amount in major units.' },
    minor_units: { type: 'integer', description: 'Amount in the smallest unit of the currency.' },
    currency: { type: 'string', description: 'ISO 4217 code.' },
    formatted: { type: 'string', description: 'The amount formatted for display.' },
  },
  required: ['amount', 'minor_units', 'currency', 'formatted'],
  additionalProperties: false,
};

/** A currency formatter per `<locale>\0<currency>`, built once each (a bad locale or currency throws, caching nothing). */
const moneyFormat = boundedMemo(FORMATTER_LIMIT, (key) => {
  const [locale, currency] = key.split('\u0000') as [string, string];
  const digits = currencyExponent(currency);
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
});

/**
 * Formats money with `Intl.NumberFormat`, always with the currency's ISO
 * 4217 decimals and from the exact decimal string (never through a float).
 * Throws a `RangeError` for an unknown currency or locale.
 *
 * @example
 * formatMoney(moneyOf(1230, 'EUR'), { locale: 'de-DE' }); // '12,30 €'
 */
export function formatMoney(amount: Money, options: MoneyFormatOptions = {}): string {
  const format = moneyFormat(`${options.locale ?? 'en-US'}\u0000${amount.currency}`);
  return format.format(moneyToDecimal(amount) as Intl.StringNumericLiteral);
}

/**
 * Renders money for a result: decimal amount, minor units, currency and a
 * formatted string.
 *
 * @example
 * presentMoney(moneyOf(1230, 'EUR'));
 * // { amount: '12.30', minor_units: 1230, currency: 'EUR', formatted: '€12.30' }
 */
export function presentMoney(amount: Money, options: MoneyFormatOptions = {}): PresentedMoney {
  return {
    amount: moneyToDecimal(amount),
    minor_units: amount.minor,
    currency: amount.currency,
    formatted: formatMoney(amount, options),
  };
}

/**
 * A field for {@link Money}, returning {@link PresentedMoney}; its `version`
 * state is `{ minor, currency }`. Throws a `ConfigurationError` for a bad locale.
 */
export function moneyField(options: MoneyFormatOptions = {}): Field<Money, PresentedMoney> {
  const locale = options.locale ?? 'en-US';
  try {
    Intl.getCanonicalLocales(locale);
  } catch {
    throw new ConfigurationError(`field.money: ${JSON.stringify(locale)} is not a valid locale tag.`);
  }
  return makeField<Money, PresentedMoney>({
    kind: 'money',
    shape: { type: 'leaf' },
    schema: PRESENTED_MONEY_SCHEMA,
    present: (value, context) => presentMoney(asMoney(value, context.path), { locale }),
    state: (value, path) => {
      const money = asMoney(value, path);
      return { minor: money.minor, currency: money.currency };
    },
  });
}

function asMoney(value: unknown, path: string): Money {
  if (typeof value === 'object' && value !== null) {
    const { minor, currency } = value as { minor?: unknown; currency?: unknown };
    if (Number.isSafeInteger(minor) && typeof currency === 'string' && exponentOf(currency) !== undefined) {
      return { minor: minor as number, currency };
    }
  }
  throw new TypeError(
    `${path}: expected Money ({ minor: safe integer, currency: ISO 4217 }), got ${typeName(value)}.`,
  );
}
