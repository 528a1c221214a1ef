import { type Connection, createGatehouse, type Gatehouse } from '@gatehousejs/core';
import { toolGuards } from '@gatehousejs/guards';
import type { BookingDatabaseBase } from '../db/database.js';
import { type Actor, type OutboundPorts, RIGHTS, type Right } from '../domain/model.js';
import { type BaseDeps, freeDeps, unitDeps } from '../services/deps.js';
import { createServices, type Services } from '../services/index.js';
import { toolErrorOf } from './errors.js';

/** The booking product's Gatehouse: its rights and services, bound once. */
/**
 * The booking product's Gatehouse: its rights, services and tool guards,
 * bound once; `THandle` is the engine's unit-of-work handle (a SQLite
 * database, a `pg.PoolClient`), which the services take without a cast.
 */
export type BookingGatehouse<THandle = unknown> = Gatehouse<Right, Services, THandle, typeof toolGuards>;

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
 * builds them once per call: for writes inside the unit of work, on its
 * handle (`unit`), so the product's writes join core's transaction; for
 * reads and previews on the database's reader.
 */
export function bookingGatehouse<THandle>(
  database: BookingDatabaseBase<THandle>,
  base: BaseDeps,
  ports: OutboundPorts,
): BookingGatehouse<THandle> {
  const reads = freeDeps(database, base);
  return createGatehouse({
    rights: RIGHTS,
    ports: {
      mailer: { effect: 'notify', port: ports.mailer },
      pager: { effect: 'wake', port: ports.pager },
      alerts: { effect: 'alert', port: ports.alerts },
    },
    toolGuards,
    // the services throw the domain's own errors; this maps them to tool errors
    toolError: toolErrorOf,
    services: (connection, guarded, unit: THandle | undefined) =>
      createServices(
        unit === undefined ? reads : unitDeps(database, base, unit),
        actorOf(connection),
        guarded,
      ),
  });
}
