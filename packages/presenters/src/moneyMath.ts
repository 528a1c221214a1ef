import { divRound, parseDecimal, pow10, type RoundingMode, toSafe } from './internal/decimal.js';
import type { Money } from './money.js';
import { currencyExponent } from './money.js';

/** How a result between two minor units is rounded: ties to even (default) or away from zero. */
export type Rounding = RoundingMode;

/** Options of the money operations that round. */
export interface RoundingOptions {
  /** Default `half-even` (banker's rounding); `half-up` rounds ties away from zero. */
  readonly rounding?: Rounding;
}

/**
 * Adds amounts of one currency in integer minor units (I20).
 * Throws a `RangeError` when an amount has another currency or the total
 * leaves the safe integer range. An empty list sums to zero.
 *
 * @example
 * sumMoney([moneyOf(1230, 'EUR'), moneyOf(70, 'EUR')], 'EUR'); // { minor: 1300, currency: 'EUR' }
 */
export function sumMoney(amounts: readonly Money[], currency: string): Money {
  currencyExponent(currency);
  let total = 0n;
  for (const amount of amounts) {
    if (amount.currency !== currency) {
      throw new RangeError(`sumMoney: cannot add ${amount.currency} to a ${currency} total.`);
    }
    total += BigInt(amount.minor);
  }
  return { minor: toSafe(total, 'sumMoney'), currency };
}

/**
 * Multiplies an amount by a factor and rounds to minor units once, with
 * the rounding rule given (default half-even). The factor is an integer
 * or a decimal string (`'1.19'`, `'0.5'`); fractional numbers are refused
 * with a `RangeError`, so no float ever touches the amount.
 *
 * @example
 * multiplyMoney(moneyOf(1005, 'EUR'), '0.5'); // { minor: 502, currency: 'EUR' } (502.5 → even)
 */
export function multiplyMoney(
  amount: Money,
  factor: string | number | bigint,
  options: RoundingOptions = {},
): Money {
  const { units, scale } = readFactor(factor, 'multiplyMoney');
  const product = divRound(BigInt(amount.minor) * units, pow10(scale), options.rounding ?? 'half-even');
  return { minor: toSafe(product, 'multiplyMoney'), currency: amount.currency };
}

/**
 * A percentage of an amount, rounded once to minor units: tax, discount or
 * tip. `percent` is an integer or a decimal string (`'19'`, `'7.5'`).
 *
 * @example
 * percentOf(moneyOf(1230, 'EUR'), '19'); // { minor: 234, currency: 'EUR' } (233.7 → 234)
 */
export function percentOf(
  amount: Money,
  percent: string | number | bigint,
  options: RoundingOptions = {},
): Money {
  const { units, scale } = readFactor(percent, 'percentOf');
  const share = divRound(BigInt(amount.minor) * units, pow10(scale + 2), options.rounding ?? 'half-even');
  return { minor: toSafe(share, 'percentOf'), currency: amount.currency };
}

/**
 * Splits a total into parts by ratios; the parts always sum to the total.
 *
 * Each part gets the whole minor units of its exact share; the units left
 * over go one each to the parts with the largest remainders (earlier parts
 * first on ties). Ratios are non-negative integers or decimal strings; a
 * part with ratio 0 gets 0. Throws a `RangeError` for no ratios, a
 * negative or fractional-number ratio, or ratios that are all zero.
 *
 * @example
 * allocateMoney(moneyOf(1000, 'EUR'), [1, 1, 1]).map((part) => part.minor); // [334, 333, 333]
 */
export function allocateMoney(total: Money, ratios: readonly (string | number | bigint)[]): Money[] {
  const weights = commonWeights(ratios);
  const sum = weights.reduce((acc, weight) => acc + weight, 0n);
  if (sum === 0n) throw new RangeError('allocateMoney: at least one ratio must be above zero.');
  const whole = BigInt(total.minor);
  const size = whole < 0n ? -whole : whole;
  const parts = weights.map((weight) => (size * weight) / sum);
  const remainders = weights.map((weight, index) => ({ index, remainder: (size * weight) % sum }));
  let left = size - parts.reduce((acc, part) => acc + part, 0n);
  remainders.sort((a, b) =>
    a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1,
  );
  for (const { index } of remainders) {
    if (left === 0n) break;
    parts[index] = (parts[index] ?? 0n) + 1n;
    left -= 1n;
  }
  return parts.map((part) => ({
    minor: toSafe(whole < 0n ? -part : part, 'allocateMoney'),
    currency: total.currency,
  }));
}

function commonWeights(ratios: readonly (string | number | bigint)[]): bigint[] {
  if (ratios.length === 0) throw new RangeError('allocateMoney: give at least one ratio.');
  const read = ratios.map((ratio) => readFactor(ratio, 'allocateMoney'));
  if (read.some(({ units }) => units < 0n)) {
    throw new RangeError('allocateMoney: ratios must not be negative.');
  }
  const scale = read.reduce((most, entry) => Math.max(most, entry.scale), 0);
  return read.map(({ units, scale: own }) => units * pow10(scale - own));
}

function readFactor(factor: string | number | bigint, where: string): { units: bigint; scale: number } {
  if (typeof factor === 'bigint') return { units: factor, scale: 0 };
  if (typeof factor === 'number') {
    if (!Number.isSafeInteger(factor)) {
      throw new RangeError(`${where}: fractional numbers are refused; pass a decimal string such as '0.19'.`);
    }
    return { units: BigInt(factor), scale: 0 };
  }
  const parsed = typeof factor === 'string' ? parseDecimal(factor) : undefined;
  if (parsed === undefined) {
    throw new RangeError(`${where}: ${JSON.stringify(factor)} is not a decimal string.`);
  }
  return parsed;
}
