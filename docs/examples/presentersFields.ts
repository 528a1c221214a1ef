import { ToolError } from '@gatehousejs/core';
import { definePresenter, field } from '@gatehousejs/presenters';

/** A customer row as the database returns it, secret columns included. */
export interface CustomerRow {
  readonly id: string;
  readonly name: string;
  readonly email: string | null;
  readonly passwordHash: string;
  readonly apiKey?: string | null;
  readonly createdAt: Date;
  /** Incremented by every UPDATE of the row. */
  readonly revision: number;
}

// #region customer-presenter
export const customerPresenter = definePresenter({
  name: 'customer',
  versioned: { revision: 'revision' },
  fields: {
    id: field.string(),
    name: field.string().personal(),
    email: field.string().personal().nullable(),
    created_at: field.instant({ zone: 'Europe/Berlin' }).from('createdAt'),
    api_key: field.string().oneTime().nullable().from('apiKey'),
  },
});
// #endregion customer-presenter

// #region ada-row
export const adaRow: CustomerRow = {
  id: 'cu_1',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  passwordHash: 'argon2id$v=19$m=65536…',
  apiKey: 'gh_key_once',
  createdAt: new Date('2026-03-20T09:15:00Z'),
  revision: 3,
};

export function showCustomer(row: CustomerRow, now: Date) {
  return customerPresenter.present(row, { now });
}
// #endregion ada-row

// #region assert-current
export function assertCurrent(row: CustomerRow, version: string, now: Date): void {
  if (customerPresenter.versionOf(row) !== version) {
    throw new ToolError({
      code: 'conflict',
      message: `Customer ${row.id} changed since you read it.`,
      fix: 'Read the current state below and send its version.',
      details: customerPresenter.present(row, { now }),
    });
  }
}
// #endregion assert-current
