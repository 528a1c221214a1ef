import { z } from 'zod';
import type { TicketsGatehouse } from './gatehouse.js';
import { deletedTicketPresenter } from './presenters.js';

/**
 * `delete_ticket` (delete, approved by a person): no model call can complete
 * it (I9). The call stores the pending action and names the console's
 * approval page; a person of the workspace signs in there, sees exactly what
 * would be deleted and approves, and that approval deletes it.
 */
export const deleteTicket = (gh: TicketsGatehouse) =>
  gh.defineTool({
    name: 'delete_ticket',
    title: 'Delete a ticket',
    description:
      'Deletes a ticket once a person approves it. Mails already sent about it stay in the outbox.',
    effect: 'delete',
    approval: 'person',
    requires: ['tickets.delete'],
    input: z.object({ ticket_id: z.string().min(1).max(100) }),
    presenter: deletedTicketPresenter,
    prepare: async ({ input, services }) => {
      const ticket = await services.tickets.get(input.ticket_id);
      return {
        content: {
          ticket_id: ticket.id,
          title: ticket.title,
          status: ticket.status,
          requester: ticket.requesterEmail,
        },
        summary: `Delete ticket ${ticket.id} (${ticket.title.slice(0, 60)})`,
      };
    },
    run: ({ input, services }) => services.tickets.delete(input.ticket_id),
  });
