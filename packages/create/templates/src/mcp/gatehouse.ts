import { type Connection, createGatehouse, type Gatehouse, type ToolErrorInit } from '@gatehousejs/core';
import { toolGuards } from '@gatehousejs/guards';
import type { Database } from '../db/database.js';
import { RIGHTS, type Right } from '../people.js';
import { TicketError } from '../tickets/model.js';
import { type Actor, type Mailer, TicketService } from '../tickets/service.js';

/** What every tool receives: the product's services, bound to the calling connection. */
export interface Services {
  readonly tickets: TicketService;
}

/** The product's Gatehouse: rights, services and tool guards, bound once. */
export type TicketsGatehouse<THandle = unknown> = Gatehouse<Right, Services, THandle, typeof toolGuards>;

/** The actor of an MCP call: the connection's workspace and the person who created its token (I2). */
const actorOf = (connection: Connection): Actor => ({
  workspaceId: connection.tenantId,
  personId: connection.creatorId,
});

/** The service's refusals as the tool errors a model reads (I18); anything else stays an internal error. */
export function toolErrorOf(error: unknown): ToolErrorInit | undefined {
  if (!TicketError.is(error)) return undefined;
  return error.kind === 'not_found'
    ? { code: 'not_found', message: error.message, fix: error.fix, next: { tool: 'find_tickets' } }
    : { code: 'invalid_arguments', message: error.message, fix: error.fix };
}

/**
 * Binds the rights, the services and the mailer port once. The mailer is a
 * `notify` port: core hands it to the services guarded, so only a
 * confirmed `notify` call reaches it (I8). Inside a write `unit` is the
 * unit of work's handle, and the tickets are read and written on it.
 */
export function ticketsGatehouse<THandle>(
  database: Database<THandle>,
  mailer: Mailer,
): TicketsGatehouse<THandle> {
  return createGatehouse({
    rights: RIGHTS,
    ports: { mailer: { effect: 'notify', port: mailer } },
    toolGuards,
    toolError: toolErrorOf,
    services: (connection, ports, unit: THandle | undefined): Services => ({
      tickets: new TicketService(
        database.tickets(connection.tenantId, unit),
        actorOf(connection),
        ports.mailer,
      ),
    }),
  });
}
