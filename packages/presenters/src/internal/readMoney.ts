import type { Money, MoneyInputOptions } from '../money.js';
import { exponentOf } from './currencies.js';
import { parseDecimal, pow10 } from './decimal.js';
import { fail, type Outcome, quote } from './outcome.js';

/** Message for an `amount` that is not a string. */
export const AMOUNT_TYPE_MESSAGE =
  '"amount" must be a decimal string such as "12.30"; numbers are refused because binary floats cannot hold cents exactly. Or send integer "minor_units" (1230 for 12.30 EUR).';

/** Message for `minor_units` that is not a safe integer. */
export const MINOR_TYPE_MESSAGE =
  '"minor_units" must be an integer count of the currency\'s smallest unit (1230 for 12.30 EUR); fractions are refused.';

/** Longest `amount` read, in characters; longer ones are refused before any parsing. */
export const MAX_AMOUNT_LENGTH = 32;

/** Longest `currency` read, in characters (codes have 3). */
const MAX_CURRENCY_LENGTH = 16;

/** The refusal of an `amount` longer than {@link MAX_AMOUNT_LENGTH}. */
export function amountTooLong(amount: string): string {
  return `"amount" ${quote(amount, 16)} is ${amount.length} characters long; an amount has at most ${MAX_AMOUNT_LENGTH}. Send a decimal string such as "1234.50", or integer "minor_units".`;
}

/** Message for a `currency` that is not a string. */
export const CURRENCY_TYPE_MESSAGE = '"currency" must be an ISO 4217 code such as "EUR", "USD" or "JPY".';

/**
 * Reads `{ amount | minor_units, currency }` into {@link Money}, or says why
 * not. An `amount` over {@link MAX_AMOUNT_LENGTH} characters (and a
 * `currency` over 16) is refused before any parsing.
 */
export function readMoney(input: unknown, options: MoneyInputOptions): Outcome<Money> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail(`Expected an object with "currency" and "amount" or "minor_units". ${AMOUNT_TYPE_MESSAGE}`);
  }
  const { amount, minor_units: minorUnits, currency } = input as Record<string, unknown>;
  const code = readCurrency(currency, options);
  if (!code.ok) return code;
  const minor = readAmount(amount, minorUnits, code.value);
  if (!minor.ok) return minor;
  if (minor.value < 0n && options.allowNegative !== true) return fail('The amount must not be negative.');
  if (minor.value > BigInt(Number.MAX_SAFE_INTEGER) || minor.value < BigInt(Number.MIN_SAFE_INTEGER)) {
    return fail('The amount is too large.');
  }
  return { ok: true, value: { minor: Number(minor.value), currency: code.value } };
}

function readCurrency(currency: unknown, options: MoneyInputOptions): Outcome<string> {
  if (typeof currency !== 'string') return fail(CURRENCY_TYPE_MESSAGE);
  if (currency.length > MAX_CURRENCY_LENGTH) {
    return fail(`Unknown currency ${quote(currency, 16)}. ${CURRENCY_TYPE_MESSAGE}`);
  }
  const code = currency.trim().toUpperCase();
  if (exponentOf(code) === undefined) {
    return fail(`Unknown currency ${quote(currency, 16)}. ${CURRENCY_TYPE_MESSAGE}`);
  }
  if (options.currencies !== undefined && !options.currencies.includes(code)) {
    return fail(`Currency ${code} is not accepted here; use ${options.currencies.join(' or ')}.`);
  }
  return { ok: true, value: code };
}

function readAmount(amount: unknown, minorUnits: unknown, currency: string): Outcome<bigint> {
  if (amount !== undefined && minorUnits !== undefined) {
    return fail('Send "amount" or "minor_units", not both.');
  }
  if (minorUnits !== undefined) {
    return Number.isSafeInteger(minorUnits)
      ? { ok: true, value: BigInt(minorUnits as number) }
      : fail(MINOR_TYPE_MESSAGE);
  }
  if (amount === undefined) {
    return fail(
      'Send "amount" (a decimal string such as "12.30") or "minor_units" (an integer such as 1230).',
    );
  }
  if (typeof amount !== 'string') return fail(AMOUNT_TYPE_MESSAGE);
  return readDecimal(amount, currency);
}

function readDecimal(amount: string, currency: string): Outcome<bigint> {
  if (amount.length > MAX_AMOUNT_LENGTH) return fail(amountTooLong(amount));
  const parsed = parseDecimal(amount.trim());
  if (parsed === undefined) {
    return fail(
      `"amount" ${quote(amount, 32)} is not a decimal number; write digits with an optional "." and no signs other than a leading "-", separators or exponent, e.g. "1234.50".`,
    );
  }
  const exponent = exponentOf(currency) ?? 0;
  if (parsed.scale <= exponent) return { ok: true, value: parsed.units * pow10(exponent - parsed.scale) };
  const excess = pow10(parsed.scale - exponent);
  if (parsed.units % excess === 0n) return { ok: true, value: parsed.units / excess };
  const places =
    exponent === 0 ? 'no decimal places' : `${exponent} decimal place${exponent === 1 ? '' : 's'}`;
  return fail(
    `${currency} has ${places}; ${quote(amount, 32)} has ${parsed.scale}. Round it first, or send "minor_units".`,
  );
}
