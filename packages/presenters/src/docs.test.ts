import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { adaRow, customerPresenter, showCustomer } from '../../../docs/examples/presentersFields.js';
import { addLineArgs, invoiceTotals, shownRefund } from '../../../docs/examples/presentersMoney.js';
import { rescheduleArgs, showBooking, storedStart } from '../../../docs/examples/presentersTime.js';
import { ticket, ticketPresenter } from '../../../docs/examples/presentersUntrustedText.js';

const now = new Date('2026-03-27T08:00:00Z');
const read = (path: string) => readFileSync(new URL(`../../../docs/${path}`, import.meta.url), 'utf8');

/** The fenced blocks of one language in a page, in order, with list indentation removed. */
function blocks(page: string, language: string): string[] {
  const found: string[] = [];
  for (const match of page.matchAll(/^( *)```(\w+)\n([\s\S]*?)^\1```$/gm)) {
    const [, indent = '', lang, body = ''] = match;
    if (lang !== language) continue;
    found.push(
      body
        .split('\n')
        .map((line) => line.slice(indent.length))
        .join('\n')
        .trimEnd(),
    );
  }
  return found;
}

function messages(schema: z.ZodType, inputs: readonly unknown[]): string[] {
  return inputs.map((input) => {
    const result = schema.safeParse(input);
    if (result.success) throw new Error('the documented input was accepted');
    return result.error.issues.map((issue) => issue.message).join('\n');
  });
}

const pages = [
  {
    page: 'presenters/field-lists.md',
    example: 'examples/presentersFields.ts',
    json: () => {
      const shown = showCustomer(adaRow, now);
      return [shown, customerPresenter.forReplay(shown), customerPresenter.personalFields];
    },
    text: () => [],
  },
  {
    page: 'presenters/untrusted-text.md',
    example: 'examples/presentersUntrustedText.ts',
    json: () => [ticketPresenter.present(ticket, { now })],
    text: () => [],
  },
  {
    page: 'presenters/time.md',
    example: 'examples/presentersTime.ts',
    json: () => [showBooking(now)],
    text: () =>
      messages(rescheduleArgs, [
        { booking_id: 'bk_1', starts_at: '2026-03-29T02:30[Europe/Berlin]' },
        { booking_id: 'bk_1', starts_at: '2026-10-25T02:30[Europe/Berlin]' },
        { booking_id: 'bk_1', starts_at: '2026-03-29T02:30' },
        { booking_id: 'bk_1', starts_at: { local: '2026-03-30T09:30', zone: 'Europe/Berln' } },
      ]),
  },
  {
    page: 'presenters/money.md',
    example: 'examples/presentersMoney.ts',
    json: () => [
      invoiceTotals(
        addLineArgs.parse({
          invoice_id: 'in_1',
          unit_price: { amount: '12.30', currency: 'EUR' },
          quantity: 3,
        }),
      ),
      shownRefund,
    ],
    text: () =>
      messages(addLineArgs, [
        { invoice_id: 'in_1', quantity: 1, unit_price: { amount: 12.3, currency: 'EUR' } },
        { invoice_id: 'in_1', quantity: 1, unit_price: { amount: '12.345', currency: 'EUR' } },
        { invoice_id: 'in_1', quantity: 1, unit_price: { amount: '5', currency: 'USD' } },
      ]),
  },
] as const;

describe('docs/presenters', () => {
  for (const { page, example, json, text } of pages) {
    it(`shows only code from the type-checked example in ${page}`, () => {
      const source = read(example);
      const snippets = blocks(read(page), 'ts');
      expect(snippets.length).toBeGreaterThan(0);
      for (const snippet of snippets) expect(source, snippet).toContain(snippet);
    });

    it(`shows the real outputs and messages in ${page}`, () => {
      expect(blocks(read(page), 'json').map((block) => JSON.parse(block))).toEqual(json());
      if (text().length > 0) expect(blocks(read(page), 'text')).toEqual(text());
    });
  }

  it('stores a time argument as epoch milliseconds and zone', () => {
    const args = rescheduleArgs.parse({
      booking_id: 'bk_1',
      starts_at: '2026-03-30T09:30[America/New_York]',
    });
    expect(storedStart(args, 'Europe/Berlin')).toEqual({
      startsAtMs: Date.UTC(2026, 2, 30, 13, 30),
      zone: 'America/New_York',
    });
  });

  it('stores a time sent with only an offset in the default zone, at the instant sent', () => {
    for (const starts_at of [
      '2026-03-30T09:30:00+02:00',
      '2026-03-30T12:30:00+05:00',
      '2026-03-30T07:30:00Z',
    ]) {
      const args = rescheduleArgs.parse({ booking_id: 'bk_1', starts_at });
      const expected = { startsAtMs: Date.parse(starts_at), zone: 'Europe/Berlin' };
      expect(storedStart(args, 'Europe/Berlin')).toEqual(expected);
    }
  });
});
