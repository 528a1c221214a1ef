import type { Actor, Booking, Workspace } from '../domain/model.js';
import { LIMITS } from '../domain/model.js';
import { type BookingFilter, BookingQueries } from './bookingQueries.js';
import { CustomerService } from './customers.js';
import { notFound, type ServiceDeps, workspaceOf } from './support.js';
import { TechnicianService } from './technicians.js';

/** A filter of a batch: a time window (required) and, optionally, one customer or technician. */
export interface BatchFilter {
  readonly customerId?: string | undefined;
  readonly technicianId?: string | undefined;
  readonly fromMs: number;
  readonly toMs: number;
}

/** What a batch filter selects: how many, and the first few. */
export interface BatchMatch {
  readonly total: number;
  readonly bookings: readonly Booking[];
}

/** Bookings of the actor's workspace: reads. Every id resolves inside the workspace (I3). */
export class BookingReads {
  protected readonly workspace: Workspace;
  protected readonly queries: BookingQueries;
  protected readonly customers: CustomerService;
  protected readonly technicians: TechnicianService;

  constructor(
    protected readonly deps: ServiceDeps,
    protected readonly actor: Actor,
  ) {
    this.workspace = workspaceOf(deps, actor);
    this.queries = new BookingQueries(deps.db, actor.workspaceId);
    this.customers = new CustomerService(deps, actor);
    this.technicians = new TechnicianService(deps, actor);
  }

  /** Bookings matching `filter`, by start time. A customer or technician of another workspace is `not_found`. */
  find(filter: BookingFilter, limit: number = LIMITS.maxListed): Booking[] {
    if (filter.customerId !== undefined) this.customers.get(filter.customerId);
    if (filter.technicianId !== undefined) this.technicians.get(filter.technicianId);
    return this.queries.find(filter, Math.min(limit, LIMITS.maxListed));
  }

  /** One booking; `not_found` (pointing to find_bookings) for an id of another workspace. */
  get(id: string): Booking {
    const booking = this.lookup(id);
    if (!booking) throw notFound('Booking', id, 'find_bookings');
    return booking;
  }

  /** One booking of the workspace, or undefined. */
  lookup(id: string): Booking | undefined {
    return this.queries.get(id);
  }

  /** The version a caller must send to change `booking` (I12). */
  versionOf(booking: Booking): string {
    return this.deps.versions.booking(booking);
  }

  /** A live booking of the customer at exactly this start: the business key of a create (I11). */
  findSameStart(customerId: string, startMs: number): Booking | undefined {
    return this.queries
      .find({ customerId, statuses: ['scheduled', 'confirmed'], fromMs: startMs, toMs: startMs + 1 }, 1)
      .at(0);
  }

  /** The live bookings a batch filter selects (I13). */
  match(filter: BatchFilter): BatchMatch {
    const scoped = { ...filter, statuses: ['scheduled', 'confirmed'] as const };
    if (filter.customerId !== undefined) this.customers.get(filter.customerId);
    if (filter.technicianId !== undefined) this.technicians.get(filter.technicianId);
    return { total: this.queries.count(scoped), bookings: this.queries.find(scoped, LIMITS.maxListed) };
  }
}
