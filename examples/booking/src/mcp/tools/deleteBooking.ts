import type { ToolDefinition } from '@gatehousejs/core';
import { formatMoney, presentInstant } from '@gatehousejs/presenters';
import type { Right } from '../../domain/model.js';
import { deletedBookingPresenter } from '../../presenters.js';
import { deleteBookingInput } from '../../schemas.js';
import type { Services } from '../../services/index.js';
import type { BookingGatehouse } from '../gatehouse.js';

/**
 * `delete_booking` (delete): the preview lists exactly what would be deleted;
 * a person approves it on the product's page, and that approval deletes it.
 */
export function deleteBookingTools(gh: BookingGatehouse): ToolDefinition<Right, Services>[] {
  return [
    gh.defineTool({
      name: 'delete_booking',
      title: 'Delete a booking',
      description:
        'Deletes a booking that is not completed. Mails and pages already sent stay in the outbound log.',
      effect: 'delete',
      approval: 'person',
      requires: ['bookings.delete'],
      input: deleteBookingInput,
      presenter: deletedBookingPresenter,
      prepare: async ({ input, services, now }) => {
        const booking = await services.bookings.planDelete(input.booking_id);
        const startsAt = presentInstant(booking.startsAt, { now });
        return {
          content: {
            deletes: [
              {
                booking_id: booking.id,
                customer: booking.customer.name,
                starts_at: startsAt,
                status: booking.status,
                price: formatMoney(booking.price, { locale: 'en-GB' }),
              },
            ],
            keeps: 'Mails and pages already sent about this booking stay in the outbound log.',
          },
          summary: `delete booking ${booking.id} (${booking.customer.name}, ${startsAt.local} ${startsAt.zone})`,
        };
      },
      run: async ({ input, services }) => ({ deleted: await services.bookings.remove(input.booking_id) }),
    }),
  ];
}
