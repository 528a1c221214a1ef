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

// #region add-line-args
export const addLineArgs = z
  .object({
    invoice_id: z.string(),
    unit_price: moneyInput({ currencies: ['EUR'] }),
    quantity: z.int().min(1),
  })
  .strict();
// #endregion add-line-args

// #region invoice-totals
export function invoiceTotals(args: z.output<typeof addLineArgs>) {
  const net = multiplyMoney(args.unit_price, args.quantity);
  const tax = percentOf(net, '19');
  const gross = sumMoney([net, tax], 'EUR');
  const [firstHalf, secondHalf] = allocateMoney(gross, [1, 1]);
  return { net, tax, gross, installments: [firstHalf, secondHalf] };
}
// #endregion invoice-totals

// #region invoice-presenter
export const invoicePresenter = definePresenter({
  name: 'invoice',
  fields: {
    id: field.string(),
    total: field.money({ locale: 'de-DE' }),
    tax: field.money().nullable(),
  },
});
// #endregion invoice-presenter

// #region shown-refund
export const shownRefund = presentMoney(moneyOf(-1230, 'EUR'), { locale: 'en-GB' });
// #endregion shown-refund
