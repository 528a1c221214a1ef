import type { Actor, OutboundPorts } from '../domain/model.js';
import { AlertService } from './alerts.js';
import { BookingService } from './bookingWrites.js';
import { CustomerService } from './customers.js';
import { OutreachService } from './outreach.js';
import type { ServiceDeps } from './support.js';
import { TechnicianService } from './technicians.js';

/** The product's services, bound to one actor: what the REST API and the MCP tools both call (I1). */
export interface Services {
  readonly customers: CustomerService;
  readonly technicians: TechnicianService;
  readonly bookings: BookingService;
  readonly outreach: OutreachService;
  readonly alerts: AlertService;
}

/**
 * Binds the services to an actor and the outbound ports. The actor is a
 * parameter, never an ambient "current user" (I2); over MCP the ports are
 * the ones Gatehouse guards for the call's effect class (I8).
 */
export function createServices(deps: ServiceDeps, actor: Actor, ports: OutboundPorts): Services {
  return {
    customers: new CustomerService(deps, actor),
    technicians: new TechnicianService(deps, actor),
    bookings: new BookingService(deps, actor),
    outreach: new OutreachService(deps, actor, ports),
    alerts: new AlertService(deps, actor, ports),
  };
}

export type { ServiceDeps, Versions } from './support.js';
