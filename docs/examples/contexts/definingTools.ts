// What the compiled blocks of docs/defining-tools.md use without declaring it
// (scripts/checkDocsCode.mjs imports these names into each block).
import type { Connection } from '@gatehousejs/core';
import { definePresenter, field } from '@gatehousejs/presenters';

interface Booking {
  readonly id: string;
  readonly customer: string;
  readonly startsAt: string;
}

/** The product's database handle. */
export declare const db: { readonly bookings: readonly Booking[] };

/** The product's services, bound to one call's connection. */
export class BookingServices {
  constructor(
    private readonly database: typeof db,
    private readonly connection: Connection,
  ) {}
  readonly bookings = {
    find: (customer?: string) => ({
      bookings: this.database.bookings.filter(
        (b) => b.id.startsWith(this.connection.tenantId) && (!customer || b.customer === customer),
      ),
    }),
  };
}

export const bookingList = definePresenter({
  name: 'booking_list',
  fields: {
    bookings: field.list(
      field.object({
        id: field.string(),
        customer: field.string(),
        starts_at: field.string().from('startsAt'),
      }),
    ),
  },
});
