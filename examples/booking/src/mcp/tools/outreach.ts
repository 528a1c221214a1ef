import type { ToolDefinition } from '@gatehousejs/core';
import { presentInstant } from '@gatehousejs/presenters';
import type { Right } from '../../domain/model.js';
import { mailSentPresenter, pageSentPresenter } from '../../presenters.js';
import { notifyCustomerInput, pageTechnicianInput } from '../../schemas.js';
import type { Services } from '../../services/index.js';
import type { BookingGatehouse } from '../gatehouse.js';

/**
 * `notify_customer` (notify) and `page_technician` (wake). Each prepares
 * what would go out (I9): the preview shows the exact mail or page; only
 * `confirm_action` sends it, through a port Gatehouse opens for that class.
 * Beside the text, the preview shows the booking's start as a full time
 * (I20); confirmation compares its instant and zone, not its distance from now.
 */
export function outreachTools(gh: BookingGatehouse): ToolDefinition<Right, Services>[] {
  return [
    gh.defineTool({
      name: 'notify_customer',
      title: 'Mail a customer',
      description:
        'Mails the customer of a booking a reminder or a confirmation of the visit, with an optional note.',
      effect: 'notify',
      requires: ['customers.notify'],
      input: notifyCustomerInput,
      presenter: mailSentPresenter,
      prepare: async ({ input, services, now }) => {
        const mail = await services.outreach.draftMail(input.booking_id, input.kind, input.note);
        return {
          content: {
            to: mail.to,
            subject: mail.subject,
            body: mail.body,
            booking: { id: mail.bookingId, starts_at: presentInstant(mail.startsAt, { now }) },
          },
          summary: `mail ${mail.to} a ${input.kind} about booking ${mail.bookingId}`,
        };
      },
      run: async ({ input, services }) => {
        const mail = await services.outreach.draftMail(input.booking_id, input.kind, input.note);
        return { message: await services.outreach.sendMail(mail), booking: { id: mail.bookingId } };
      },
    }),
    gh.defineTool({
      name: 'page_technician',
      title: 'Page a technician',
      description: 'Pages an on-call technician with a short message, optionally about a booking.',
      effect: 'wake',
      approval: 'person',
      requires: ['technicians.page'],
      input: pageTechnicianInput,
      presenter: pageSentPresenter,
      prepare: async ({ input, services, now }) => {
        const page = await services.outreach.draftPage(input.technician_id, input.booking_id, input.message);
        const booking =
          page.bookingId === null || page.startsAt === null
            ? null
            : { id: page.bookingId, starts_at: presentInstant(page.startsAt, { now }) };
        return {
          content: {
            technician: { id: page.technicianId, name: page.technicianName },
            booking,
            message: page.message,
          },
          summary: `page ${page.technicianName} (${page.technicianId})${page.bookingId ? ` about ${page.bookingId}` : ''}`,
        };
      },
      run: async ({ input, services }) => {
        const page = await services.outreach.draftPage(input.technician_id, input.booking_id, input.message);
        return {
          page: await services.outreach.sendPage(page),
          technician: { id: page.technicianId },
          booking: page.bookingId === null ? null : { id: page.bookingId },
        };
      },
    }),
  ];
}
