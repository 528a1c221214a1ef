import { z } from 'zod';
import type { TicketsGatehouse } from './gatehouse.js';
import { sentMailPresenter } from './presenters.js';

/**
 * `email_requester` (notify): reaches a customer, so it takes two steps
 * (I9). The first call only renders the mail (`prepare`, with the mailer
 * closed) and answers a preview with a confirm token; `confirm_action`
 * sends it, once, if the mail would still be the same.
 */
export const emailRequester = (gh: TicketsGatehouse) =>
  gh.defineTool({
    name: 'email_requester',
    title: 'Mail the requester of a ticket',
    description: 'Mails the person who opened a ticket a message about it.',
    effect: 'notify',
    requires: ['requesters.email'],
    input: z.object({ ticket_id: z.string().min(1).max(100), message: z.string().min(1).max(2000) }),
    presenter: sentMailPresenter,
    prepare: async ({ input, services }) => {
      const mail = await services.tickets.draftMail(input.ticket_id, input.message);
      return {
        content: { ticket_id: mail.ticketId, to: mail.to, subject: mail.subject, text: mail.text },
        summary: `Mail the requester of ${mail.ticketId}: ${mail.subject.slice(0, 80)}`,
      };
    },
    run: ({ input, services }) => services.tickets.sendMail(input.ticket_id, input.message),
  });
