import { type Connection, createGatehouse, type Gatehouse } from '@gatehousejs/core';
import { type Actor, type OutboundPorts, RIGHTS, type Right } from '../domain/model.js';
import { createServices, type ServiceDeps, type Services } from '../services/index.js';

/** The booking product's Gatehouse: its rights and services, bound once. */
export type BookingGatehouse = Gatehouse<Right, Services>;

/** The actor of an MCP call: the connection's tenant and creator, never an ambient user (I2). */
export const actorOf = (connection: Connection): Actor => ({
  workspaceId: connection.tenantId,
  personId: connection.creatorId,
  channel: 'mcp',
});

/**
 * Binds the rights vocabulary, the services (per call, for the calling
 * connection) and the outbound ports with their effect classes (I8): the
 * mailer notifies, the pager wakes, the alert control alerts. Services
 * receive the ports guarded for the call's effect class and phase; core
 * builds them once per call (inside the unit of work for writes, whose
 * handle is the same SQLite connection the services already use).
 */
export function bookingGatehouse(deps: ServiceDeps, ports: OutboundPorts): BookingGatehouse {
  return createGatehouse({
    rights: RIGHTS,
    ports: {
      mailer: { effect: 'notify', port: ports.mailer },
      pager: { effect: 'wake', port: ports.pager },
      alerts: { effect: 'alert', port: ports.alerts },
    },
    services: (connection, guarded) => createServices(deps, actorOf(connection), guarded),
  });
}
