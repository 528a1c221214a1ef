import { type ToolDefinition, ToolError } from '@gatehousejs/core';
import { presentInstant } from '@gatehousejs/presenters';
import type { z } from 'zod';
import type { Right } from '../../domain/model.js';
import { bookingListPresenter, bookingPresenter } from '../../presenters.js';
import {
  createBookingInput,
  newBookingOf,
  rescheduleBookingsInput,
  updateBookingInput,
} from '../../schemas.js';
import type { BatchSelection } from '../../services/bookingWrites.js';
import type { Services } from '../../services/index.js';
import type { BookingGatehouse } from '../gatehouse.js';

type RescheduleInput = z.output<typeof rescheduleBookingsInput>;

/** A batch filter in the service's terms. */
const filterOf = (filter: NonNullable<RescheduleInput['filter']>) => ({
  customerId: filter.customer_id,
  technicianId: filter.technician_id,
  fromMs: filter.from.epochMilliseconds,
  toMs: filter.to.epochMilliseconds,
});

function selectionOf(input: RescheduleInput): BatchSelection {
  if (input.ids && input.filter) {
    throw new ToolError({
      code: 'invalid_arguments',
      message: 'reschedule_bookings takes ids or a filter, not both.',
      fix: 'Send either ids, or a filter with expected_count.',
    });
  }
  if (input.ids) return { ids: input.ids };
  if (!input.filter) {
    throw new ToolError({
      code: 'invalid_arguments',
      message: 'reschedule_bookings needs ids or a filter.',
      fix: 'Send ids, or a filter with expected_count; find_bookings shows the candidates.',
      next: { tool: 'find_bookings' },
    });
  }
  return { filter: filterOf(input.filter), expectedCount: input.expected_count ?? -1 };
}

/** `create_booking`, `update_booking` and `reschedule_bookings`: silent writes through the booking service. */
export function bookingWriteTools(gh: BookingGatehouse): ToolDefinition<Right, Services>[] {
  return [
    gh.defineTool({
      name: 'create_booking',
      title: 'Create a booking',
      description:
        'Books a visit for a customer at a start time, for a duration and a price, optionally with a technician.',
      effect: 'write',
      requires: ['bookings.write'],
      input: createBookingInput,
      presenter: bookingPresenter,
      guards: (g) => [
        // the business key of a create (I11): the customer and the exact start
        g.duplicate({
          updateTool: 'update_booking',
          noun: 'booking',
          key: (input, { now }) => ({
            customer_id: input.customer_id,
            starts_at: presentInstant(input.starts_at, { now }),
          }),
          find: ({ input, services }) =>
            services.bookings.findSameStart(input.customer_id, input.starts_at.epochMilliseconds),
        }),
      ],
      run: ({ input, services }) => services.bookings.create(newBookingOf(input)),
    }),
    gh.defineTool({
      name: 'update_booking',
      title: 'Update a booking',
      description:
        'Changes the technician, start, duration, price or status of a booking, given the version last read.',
      effect: 'write',
      requires: ['bookings.write'],
      input: updateBookingInput,
      presenter: bookingPresenter,
      guards: (g) => [
        // the booking as the caller would read it now, for a stale version's `conflict` (I12)
        g.version({
          field: 'version',
          readTool: 'get_booking',
          current: async ({ input, services, now }) => {
            const booking = await services.bookings.lookup(input.id);
            if (!booking) return undefined;
            const object = bookingPresenter.present(booking, { now });
            return { version: object.version, object };
          },
        }),
      ],
      run: ({ input, services }) =>
        services.bookings.update(input.id, input.version, {
          technicianId: input.technician_id,
          startsAt: input.starts_at,
          durationMinutes: input.duration_minutes,
          price: input.price,
          status: input.status,
        }),
    }),
    gh.defineTool({
      name: 'reschedule_bookings',
      title: 'Reschedule bookings',
      description:
        'Moves several live bookings by the same number of minutes: explicit ids, or a filter with the expected count.',
      effect: 'write',
      requires: ['bookings.write'],
      input: rescheduleBookingsInput,
      presenter: bookingListPresenter,
      guards: (g) => [
        // bounded batches (I13): a filter's matches are counted and listed before anything moves
        g.batchCount({
          maxSize: 50,
          match: async ({ input, services, now }) => {
            if (!input.filter) return { total: 0, sample: [] };
            const found = await services.bookings.match(filterOf(input.filter));
            const sample = found.bookings.map((b) => ({
              id: b.id,
              customer: b.customer.name,
              starts_at: presentInstant(b.startsAt, { now }),
              status: b.status,
            }));
            return { total: found.total, sample };
          },
        }),
      ],
      run: async ({ input, services }) => ({
        bookings: await services.bookings.reschedule(selectionOf(input), input.shift_minutes),
      }),
    }),
  ];
}
