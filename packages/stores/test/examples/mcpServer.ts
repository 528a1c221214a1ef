import { createSwitches } from '@gatehousejs/access';
import { type Authenticate, createGatehouse, jsonSchema, type Presenter } from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import type { BookingInput } from './crashSafeWrite.js';
import type { ProductDatabase } from './setup.js';

interface Booking {
  readonly id: string;
  readonly slot: string;
}

const bookingPresenter: Presenter<Booking> = {
  outputSchema: {
    type: 'object',
    properties: { booking: { type: 'object' } },
    required: ['booking'],
    additionalProperties: false,
  },
  present: (booking) => ({ booking: { id: booking.id, slot: booking.slot } }),
};

/** The product's booking service; its statements run on the handle they are given. */
function bookingService({ db }: ProductDatabase) {
  const insert = db.prepare<[string, string, string]>(
    'INSERT INTO bookings (id, customer, slot) VALUES (?, ?, ?)',
  );
  return {
    book(input: BookingInput): Booking {
      const id = `bk_${input.slot}`;
      insert.run(id, input.customer, input.slot);
      return { id, slot: input.slot };
    },
  };
}

/** An MCP server whose writes commit with their audit rows and replay records. */
export function createBookingServer(product: ProductDatabase, authenticate: Authenticate<'bookings.write'>) {
  const { stores } = product;
  const bookings = bookingService(product);
  // Inside a unit of work its handle is `db` itself: the service's statements join its transaction.
  const gh = createGatehouse({
    rights: ['bookings.write'] as const,
    services: () => bookings,
  });
  const bookSlot = gh.defineTool({
    name: 'book_slot',
    description: 'Books a slot for a customer.',
    effect: 'write',
    requires: ['bookings.write'],
    input: jsonSchema<BookingInput>({
      type: 'object',
      properties: { customer: { type: 'string', minLength: 1 }, slot: { type: 'string', minLength: 1 } },
      required: ['customer', 'slot'],
    }),
    presenter: bookingPresenter,
    run: ({ input, services }) => services.book(input),
  });
  // #region server
  // The kill switches, in the same database (I6).
  const switches = createSwitches({
    store: stores.switches,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
  });
  return gh.createServer({
    name: 'bookings',
    version: '1.0.0',
    tools: [bookSlot],
    authenticate,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
    // Replay records, rate buckets and pending actions on the same stores: one transaction per write.
    guards: standardGuards(stores, {
      switches,
      rate: { limits: { write: { capacity: 30, refillPerSecond: 0.5 } } },
    }),
  });
  // #endregion server
}

// #region book-from-api
/** A REST handler's write on the same handle: under the shared lock, never inside an MCP transaction. */
export function bookFromApi(product: ProductDatabase, input: BookingInput): Promise<Booking> {
  return product.stores.lock.run(() => bookingService(product).book(input));
}
// #endregion book-from-api
