import {
  type Authenticate,
  createGatehouse,
  type JsonObject,
  type Presenter,
  sha256Hex,
} from '@gatehouse/core';
import { z } from 'zod';
import { type Booking, BookingData, BookingService, RIGHTS, type Right } from './services.js';

const bookingFields = (b: Booking): JsonObject => ({ id: b.id, customer: b.customer, starts_at: b.startsAt });
const bookingSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, customer: { type: 'string' }, starts_at: { type: 'string' } },
  required: ['id', 'customer', 'starts_at'],
  additionalProperties: false,
};

const bookingList: Presenter<Booking[]> = {
  outputSchema: {
    type: 'object',
    properties: { bookings: { type: 'array', items: bookingSchema } },
    required: ['bookings'],
    additionalProperties: false,
  },
  present: (bookings) => ({ bookings: bookings.map(bookingFields) }),
};
const oneBooking: Presenter<Booking> = {
  outputSchema: {
    type: 'object',
    properties: { booking: bookingSchema },
    required: ['booking'],
    additionalProperties: false,
  },
  present: (booking) => ({ booking: bookingFields(booking) }),
};

/** Builds the example server over `data`, accepting the credentials in `tokens` (token hash → grant). */
export function bookingServer(
  data: BookingData,
  tokens: ReadonlyMap<string, { tenantId: string; personId: string }>,
) {
  const gh = createGatehouse({
    rights: RIGHTS,
    services: (connection) => ({ bookings: new BookingService(data, connection) }),
  });

  const findBookings = gh.defineTool({
    name: 'find_bookings',
    title: 'Find bookings',
    description: 'Lists bookings in this workspace, optionally filtered by customer name.',
    effect: 'read',
    requires: ['bookings.read'],
    input: z.object({ customer: z.string().max(100).optional().describe('Part of the customer name.') }),
    presenter: bookingList,
    run: ({ input, services }) => services.bookings.find(input.customer),
  });

  const createBooking = gh.defineTool({
    name: 'create_booking',
    title: 'Create a booking',
    description: 'Creates a booking for a customer at a start time (ISO 8601 with offset).',
    effect: 'write',
    requires: ['bookings.write'],
    input: z.object({
      customer: z.string().min(1).max(100),
      starts_at: z.iso.datetime({ offset: true }).describe('Start, e.g. 2030-05-04T09:00:00+02:00.'),
    }),
    presenter: oneBooking,
    run: ({ input, services }) => services.bookings.create(input.customer, input.starts_at),
  });

  const authenticate: Authenticate<Right> = async ({ token }) => {
    const grant = tokens.get(sha256Hex(token));
    if (!grant) return { ok: false, status: 401, reason: 'The token is not valid.' };
    return {
      ok: true,
      connection: {
        connectionId: `conn_${sha256Hex(token).slice(0, 12)}`,
        tenantId: grant.tenantId,
        creatorId: grant.personId,
        clientName: 'demo',
        channel: 'mcp',
        rights: new Set<Right>(RIGHTS),
      },
    };
  };

  return gh.createServer({
    name: 'gatehouse-booking',
    version: '0.1.0',
    tools: [findBookings, createBooking],
    authenticate,
  });
}

export { BookingData };
