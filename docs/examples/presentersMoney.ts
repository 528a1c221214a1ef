import {
  allocateMoney,
  definePresenter,
  field,
  moneyInput,
  moneyOf,
  multiplyMoney,
  percentOf,
  presentMoney,
  sumMoney,
} from '@gatehousejs/presenters';
import { z } from 'zod';

export const addLineArgs = z
  .object({
    invoice_id: z.string(),
    unit_price: moneyInput({ currencies: ['EUR'] }),
    quantity: z.int().min(1),
  })
  .strict();

export function invoiceTotals(args: z.output<typeof addLineArgs>) {
  const net = multiplyMoney(args.unit_price, args.quantity);
  const tax = percentOf(net, '19');
  const gross = sumMoney([net, tax], 'EUR');
  const [firstHalf, secondHalf] = allocateMoney(gross, [1, 1]);
  return { net, tax, gross, installments: [firstHalf, secondHalf] };
}

export const invoicePresenter = definePresenter({
  name: 'invoice',
  fields: {
    id: field.string(),
    total: field.money({ locale: 'de-DE' }),
    tax: field.money().nullable(),
  },
});

export const shownRefund = presentMoney(moneyOf(-1230, 'EUR'), { locale: 'en-GB' });
