import { definePresenter, field } from '@gatehousejs/presenters';
import { TICKET_STATUSES } from '../tickets/model.js';

/**
 * One ticket as a model sees it: only the fields listed here leave the
 * server (I17: never the portal key), the requester's text wrapped as
 * untrusted (I16), and a version that changes with every write (I12).
 */
export const ticketPresenter = definePresenter({
  name: 'ticket',
  versioned: { revision: 'revision' },
  fields: {
    id: field.string(),
    title: field.string(),
    status: field.enum(TICKET_STATUSES),
    body: field.untrustedText({ maxLength: 2000 }),
    requester_email: field.string().personal().from('requesterEmail'),
    created_by: field.string().from('createdBy'),
  },
});

/** A list of tickets: ids, titles and statuses; `get_ticket` shows one in full. */
export const ticketListPresenter = definePresenter({
  name: 'ticket list',
  fields: {
    tickets: field.list(
      field.object({ id: field.string(), title: field.string(), status: field.enum(TICKET_STATUSES) }),
    ),
  },
});

/** A sent mail: which one, about which ticket, to whom. */
export const sentMailPresenter = definePresenter({
  name: 'sent mail',
  fields: {
    mail_id: field.string().from('id'),
    ticket_id: field.string().from('ticketId'),
    sent_to: field.string().personal().from('to'),
  },
});
// #if console

/** A deleted ticket: its id and title. */
export const deletedTicketPresenter = definePresenter({
  name: 'deleted ticket',
  fields: { deleted: field.string().from('id'), title: field.string() },
});
// #endif
