import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { Money } from './money.js';
import { moneyInput } from './moneyInput.js';

const args = z.object({ price: moneyInput({ currencies: ['EUR', 'JPY'] }) }).strict();

function messages(price: unknown): string[] {
  const result = args.safeParse({ price });
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

describe('moneyInput', () => {
  it('outputs Money for a decimal amount or integer minor units', () => {
    expect(args.parse({ price: { amount: '12.30', currency: 'EUR' } }).price).toEqual({
      minor: 1230,
      currency: 'EUR',
    });
    expect(args.parse({ price: { minor_units: 500, currency: 'JPY' } }).price).toEqual({
      minor: 500,
      currency: 'JPY',
    });
    expectTypeOf<z.output<typeof args>['price']>().toEqualTypeOf<Money>();
  });

  it('refuses a float amount with a message that says why', () => {
    expect(messages({ amount: 12.3, currency: 'EUR' })[0]).toMatch(
      /^"amount" must be a decimal string such as "12\.30"/,
    );
    expect(messages({ minor_units: 12.5, currency: 'EUR' })[0]).toMatch(/^"minor_units" must be an integer/);
  });

  it('refuses excess decimals, disallowed currencies and unknown fields', () => {
    expect(messages({ amount: '1.234', currency: 'EUR' })).toEqual([
      'EUR has 2 decimal places; "1.234" has 3. Round it first, or send "minor_units".',
    ]);
    expect(messages({ amount: '1', currency: 'USD' })).toEqual([
      'Currency USD is not accepted here; use EUR or JPY.',
    ]);
    expect(messages({ amount: '1', currency: 'EUR', tip: '1' })[0]).toMatch(/Unrecognized key/);
  });

  it('refuses an amount over 32 characters with the message of parseMoney', () => {
    expect(messages({ amount: '1'.repeat(100 * 1024), currency: 'EUR' })).toEqual([
      '"amount" "1111111111111111…" is 102400 characters long; an amount has at most 32. Send a decimal string such as "1234.50", or integer "minor_units".',
    ]);
    expect(args.parse({ price: { amount: `${'0'.repeat(27)}12.30`, currency: 'EUR' } }).price.minor).toBe(
      1230,
    );
  });

  it('describes what callers send as JSON Schema', () => {
    expect(z.toJSONSchema(moneyInput(), { io: 'input' })).toMatchObject({
      type: 'object',
      properties: {
        amount: { type: 'string', maxLength: 32 },
        minor_units: { type: 'integer' },
        currency: { type: 'string' },
      },
      required: ['currency'],
      additionalProperties: false,
    });
  });
});
