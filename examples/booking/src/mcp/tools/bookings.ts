import type { ToolDefinition } from '@gatehousejs/core';
import type { Right } from '../../domain/model.js';
import { bookingListPresenter, bookingPresenter } from '../../presenters.js';
import { bookingFilterOf, findBookingsInput, getBookingInput } from '../../schemas.js';
import type { Services } from '../../services/index.js';
import type { BookingGatehouse } from '../gatehouse.js';

/** `find_bookings` and `get_booking`: reads through the booking service. */
export function bookingReadTools(gh: BookingGatehouse): ToolDefinition<Right, Services>[] {
  return [
    gh.defineTool({
      name: 'find_bookings',
      title: 'Find bookings',
      description:
        'Lists bookings of this workspace by start time, filtered by customer, technician, status and a time window.',
      effect: 'read',
      requires: ['bookings.read'],
      input: findBookingsInput,
      presenter: bookingListPresenter,
      run: async ({ input, services }) => ({
        bookings: await services.bookings.find(bookingFilterOf(input), input.limit),
      }),
    }),
    gh.defineTool({
      name: 'get_booking',
      title: 'Get a booking',
      description: 'Returns one booking with its times, price, status and the version an update cites.',
      effect: 'read',
      requires: ['bookings.read'],
      input: getBookingInput,
      presenter: bookingPresenter,
      run: ({ input, services }) => services.bookings.get(input.id),
    }),
  ];
}
