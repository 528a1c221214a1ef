import { z } from 'zod';
import {
  AMOUNT_TYPE_MESSAGE,
  amountTooLong,
  CURRENCY_TYPE_MESSAGE,
  MAX_AMOUNT_LENGTH,
  MINOR_TYPE_MESSAGE,
  readMoney,
} from './internal/readMoney.js';
import type { Money, MoneyInputOptions, MoneyInputValue } from './money.js';

/**
 * A zod schema for a money argument: validates like `parseMoney` and
 * outputs {@link Money}; its issues carry the same messages (I20).
 *
 * The caller sends `currency` with either `amount` (a decimal string) or
 * `minor_units` (an integer); numbers as `amount`, fractional minor units,
 * excess decimals, unknown fields and unknown currencies are refused, and
 * an `amount` over 32 characters before any parsing.
 * For a JSON Schema of what callers send, convert with `io: 'input'`.
 *
 * @example
 * const args = z.object({ price: moneyInput({ currencies: ['EUR'] }) }).strict();
 * args.parse({ price: { amount: '12.30', currency: 'EUR' } }).price; // { minor: 1230, currency: 'EUR' }
 */
export function moneyInput(options: MoneyInputOptions = {}): z.ZodType<Money, MoneyInputValue> {
  return z
    .object({
      amount: z
        .string({ error: AMOUNT_TYPE_MESSAGE })
        .max(MAX_AMOUNT_LENGTH, { error: (issue) => amountTooLong(String(issue.input)) })
        .optional()
        .describe('Decimal string in major units, e.g. "12.30". Send this or minor_units.'),
      minor_units: z
        .int({ error: MINOR_TYPE_MESSAGE })
        .optional()
        .describe("Integer amount in the currency's smallest unit, e.g. 1230. Send this or amount."),
      currency: z.string({ error: CURRENCY_TYPE_MESSAGE }).describe('ISO 4217 code, e.g. "EUR".'),
    })
    .strict()
    .transform((value, context) => {
      const outcome = readMoney(value, options);
      if (outcome.ok) return outcome.value;
      context.issues.push({ code: 'custom', message: outcome.message, input: value });
      return z.NEVER;
    })
    .describe('An amount of money: currency plus amount (decimal string) or minor_units (integer).');
}
