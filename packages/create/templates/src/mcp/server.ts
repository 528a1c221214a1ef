import type { Credentials, Switches } from '@gatehousejs/access';
import { errorLog, type GatehouseServer, type Logger } from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import type { Database } from '../db/database.js';
import type { Right } from '../people.js';
import type { Mailer } from '../tickets/service.js';
// #if console
import { deleteTicket } from './deleteTicket.js';
// #endif
import { emailRequester } from './emailRequester.js';
import { type TicketsGatehouse, ticketsGatehouse } from './gatehouse.js';
import { createTicket, findTickets, getTicket, updateTicket } from './tickets.js';

/** Every tool the server lists, in the order it lists them. */
export const ticketTools = (gh: TicketsGatehouse) => [
  findTickets(gh),
  getTicket(gh),
  createTicket(gh),
  updateTicket(gh),
  emailRequester(gh),
  // #if console
  deleteTicket(gh),
  // #endif
];

/** What the MCP server is built from. */
export interface McpServerParts<THandle> {
  readonly database: Database<THandle>;
  readonly credentials: Credentials<Right>;
  readonly switches: Switches;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly clock: () => Date;
  // #if console
  /** The console's approval page of a pending action (a person approves `delete_ticket` there). */
  readonly approvalUrl: (pendingActionId: string) => string;
  // #endif
}

/**
 * The MCP server: the tools, and every guard a server needs in one line
 * (tenant binding, live rights, kill switches, rate buckets, replay, the
 * two-step confirm, output cleaning) on the database's stores; each write
 * runs in the database's unit of work with its audit row.
 */
export function ticketsServer<THandle>(parts: McpServerParts<THandle>): GatehouseServer<Right> {
  const { database, credentials } = parts;
  const gh = ticketsGatehouse(database, parts.mailer);
  return gh.createServer({
    name: 'tickets',
    version: '0.1.0',
    tools: ticketTools(gh),
    authenticate: credentials.authenticate,
    guards: standardGuards(database.stores, {
      switches: parts.switches,
      // #if console
      confirm: {
        approval: {
          url: parts.approvalUrl,
          connectionOf: (id, tenantId) => credentials.connectionById(id, tenantId),
        },
      },
      // #endif
    }),
    audit: database.stores.audit,
    unitOfWork: database.unitOfWork,
    logger: parts.logger,
    onError: errorLog(parts.logger),
    clock: parts.clock,
  });
}
