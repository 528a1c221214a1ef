import { z } from 'zod';
import { TICKET_STATUSES } from '../tickets/model.js';
import type { TicketsGatehouse } from './gatehouse.js';
import { ticketListPresenter, ticketPresenter } from './presenters.js';

const ticketId = z.string().min(1).max(100);

/** `find_tickets` (read): the workspace's tickets whose title contains the query. */
export const findTickets = (gh: TicketsGatehouse) =>
  gh.defineTool({
    name: 'find_tickets',
    title: 'Find tickets',
    description:
      'Lists the tickets of this workspace whose title contains the query (all of them without one).',
    effect: 'read',
    requires: ['tickets.read'],
    input: z.object({ query: z.string().max(100).optional() }),
    presenter: ticketListPresenter,
    run: async ({ input, services }) => ({ tickets: await services.tickets.find(input.query) }),
  });

/** `get_ticket` (read): one ticket in full, with the version an update needs. */
export const getTicket = (gh: TicketsGatehouse) =>
  gh.defineTool({
    name: 'get_ticket',
    title: 'Get a ticket',
    description: 'Returns one ticket of this workspace with its version.',
    effect: 'read',
    requires: ['tickets.read'],
    input: z.object({ id: ticketId }),
    presenter: ticketPresenter,
    run: ({ input, services }) => services.tickets.get(input.id),
  });

/**
 * `create_ticket` (write): replay-protected (a re-sent call returns the first
 * result, I10), run in the unit of work with its audit row (I15), and
 * refused when the workspace has a ticket of that title (I11).
 */
export const createTicket = (gh: TicketsGatehouse) =>
  gh.defineTool({
    name: 'create_ticket',
    title: 'Create a ticket',
    description: 'Opens a ticket for a requester. Titles are unique in a workspace.',
    effect: 'write',
    requires: ['tickets.write'],
    input: z.object({
      title: z.string().min(1).max(120),
      body: z.string().max(4000),
      requester_email: z.string().email().max(200),
    }),
    presenter: ticketPresenter,
    guards: (g) => [
      g.duplicate({
        key: (input) => ({ title: input.title.trim() }),
        find: ({ input, services }) => services.tickets.findByTitle(input.title),
        updateTool: 'update_ticket',
        noun: 'ticket',
      }),
    ],
    run: ({ input, services }) =>
      services.tickets.create({
        title: input.title,
        body: input.body,
        requesterEmail: input.requester_email,
      }),
  });

/** `update_ticket` (write): changes the title or status, given the version the caller read (I12). */
export const updateTicket = (gh: TicketsGatehouse) =>
  gh.defineTool({
    name: 'update_ticket',
    title: 'Update a ticket',
    description: 'Changes the title or the status of a ticket, given the version you read.',
    effect: 'write',
    requires: ['tickets.write'],
    input: z.object({
      id: ticketId,
      version: z.string().min(1).max(64),
      title: z.string().min(1).max(120).optional(),
      status: z.enum(TICKET_STATUSES).optional(),
    }),
    presenter: ticketPresenter,
    guards: (g) => [
      g.version({
        readTool: 'get_ticket',
        current: async ({ input, services, now }) => {
          const ticket = await services.tickets.get(input.id);
          return {
            version: ticketPresenter.versionOf(ticket),
            object: ticketPresenter.present(ticket, { now }),
          };
        },
      }),
    ],
    run: ({ input, services }) =>
      services.tickets.update(input.id, {
        ...(input.title === undefined ? {} : { title: input.title }),
        ...(input.status === undefined ? {} : { status: input.status }),
      }),
  });
