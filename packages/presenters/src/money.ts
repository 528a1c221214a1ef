import { ToolError } from '@gatehousejs/core';
import { exponentOf } from './internal/currencies.js';
import { minorToDecimal, toSafe } from './internal/decimal.js';
import { readMoney } from './internal/readMoney.js';

/**
 * An amount of money in integer minor units of an ISO 4217 currency
 * (`{ minor: 1230, currency: 'EUR' }` is 12.30 EUR). Plain JSON, so it can
 * be stored, hashed and compared as is; `minor` is always a safe integer.
 */
export type Money = { readonly minor: number; readonly currency: string };

/** A money argument as a caller sends it: `currency` plus exactly one of `amount` and `minor_units`. */
export type MoneyInputValue = {
  /** Decimal string in major units, e.g. `"12.30"`. */
  readonly amount?: string;
  /** Integer minor units, e.g. `1230`. */
  readonly minor_units?: number;
  /** ISO 4217 code, e.g. `"EUR"` (case-insensitive). */
  readonly currency: string;
};

/** Options of {@link parseMoney} and {@link moneyInput}. */
export interface MoneyInputOptions {
  /** Only these currencies are accepted (ISO 4217 codes). Default: every known code. */
  readonly currencies?: readonly string[];
  /** Accept amounts below zero. Default `false`. */
  readonly allowNegative?: boolean;
}

/**
 * The minor-unit exponent of an ISO 4217 currency: JPY 0, EUR 2, KWD 3.
 * Throws a `RangeError` for a code that is not an active ISO 4217 currency
 * with a minor unit.
 */
export function currencyExponent(currency: string): number {
  const exponent = exponentOf(currency);
  if (exponent === undefined) throw new RangeError(`Unknown ISO 4217 currency ${JSON.stringify(currency)}.`);
  return exponent;
}

/**
 * Builds {@link Money} from integer minor units held by trusted code (a
 * database column). Throws a `RangeError` for a fraction, a number outside
 * the safe integer range, or an unknown currency: floats never become money.
 *
 * @example
 * moneyOf(1230, 'EUR'); // { minor: 1230, currency: 'EUR' }
 */
export function moneyOf(minor: number | bigint, currency: string): Money {
  currencyExponent(currency);
  if (typeof minor === 'number' && !Number.isSafeInteger(minor)) {
    throw new RangeError('moneyOf: minor units must be a safe integer; floats are refused.');
  }
  return { minor: toSafe(BigInt(minor), 'moneyOf'), currency };
}

/**
 * The amount as a decimal string in major units with exactly the
 * currency's decimals: `{ minor: 1230, currency: 'EUR' }` → `"12.30"`.
 * `parseMoney({ amount: moneyToDecimal(m), currency: m.currency })` equals `m`.
 */
export function moneyToDecimal(amount: Money): string {
  return minorToDecimal(BigInt(amount.minor), currencyExponent(amount.currency));
}

/**
 * Reads a money argument a caller sent (I20): a decimal string `amount`
 * or integer `minor_units`, plus an ISO 4217 `currency`.
 *
 * Refuses with a `ToolError` `invalid_arguments`: numbers as `amount`
 * (floats), fractional `minor_units`, more decimals than the currency has,
 * unknown or disallowed currencies, negative amounts unless allowed,
 * sending both or neither amount form, and, before any parsing, an
 * `amount` over 32 characters. Nothing is rounded silently.
 *
 * @example
 * parseMoney({ amount: '12.30', currency: 'EUR' }); // { minor: 1230, currency: 'EUR' }
 */
export function parseMoney(input: MoneyInputValue, options: MoneyInputOptions = {}): Money {
  const outcome = readMoney(input, options);
  if (outcome.ok) return outcome.value;
  throw new ToolError({
    code: 'invalid_arguments',
    message: outcome.message,
    fix: 'Send "currency" with "amount" as a decimal string ("12.30") or integer "minor_units" (1230).',
  });
}
