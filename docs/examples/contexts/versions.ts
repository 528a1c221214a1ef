// What the compiled block of docs/writes/versions.md uses without declaring it
// (scripts/checkDocsCode.mjs imports these names into the block).
import { field } from '@gatehousejs/presenters';

export { definePresenter } from '@gatehousejs/presenters';

/** The fields a booking shows (the product's `revision` column is read, never shown). */
export const bookingFields = {
  id: field.string(),
  customer: field.string(),
  starts_at: field.string().from('startsAt'),
};
