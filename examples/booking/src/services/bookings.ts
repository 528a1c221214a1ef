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
  protected readonly queries: BookingQueries;
  protected readonly customers: CustomerService;
  protected readonly technicians: TechnicianService;

  constructor(
    protected readonly deps: ServiceDeps,
    protected readonly actor: Actor,
  ) {
    this.queries = new BookingQueries(deps.db, actor.workspaceId);
    this.customers = new CustomerService(deps, actor);
    this.technicians = new TechnicianService(deps, actor);
  }

  /** The actor's workspace, read once per actor. */
  protected workspace(): Promise<Workspace> {
    return workspaceOf(this.deps, this.actor);
  }

  /** Bookings matching `filter`, by start time. A customer or technician of another workspace is `not_found`. */
  async find(filter: BookingFilter, limit: number = LIMITS.maxListed): Promise<Booking[]> {
    if (filter.customerId !== undefined) await this.customers.get(filter.customerId);
    if (filter.technicianId !== undefined) await this.technicians.get(filter.technicianId);
    return this.queries.find(filter, Math.min(limit, LIMITS.maxListed));
  }

  /** One booking; `not_found` (pointing to find_bookings) for an id of another workspace. */
  async get(id: string): Promise<Booking> {
    const booking = await this.lookup(id);
    if (!booking) throw notFound('Booking', id, 'find_bookings');
    return booking;
  }

  /** One booking of the workspace, or undefined. */
  lookup(id: string): Promise<Booking | undefined> {
    return this.queries.get(id);
  }

  /** The version a caller must send to change `booking` (I12). */
  versionOf(booking: Booking): string {
    return this.deps.versions.booking(booking);
  }

  /**
   * A live booking of the customer at exactly this start: the business key
   * of a create (I11). Core serializes the duplicate check per key inside
   * the unit of work, so two processes cannot both find none and both create.
   */
  async findSameStart(customerId: string, startMs: number): Promise<{ readonly id: string } | undefined> {
    const id = await this.queries.liveIdAt(customerId, startMs);
    return id === undefined ? undefined : { id };
  }

  /** The live bookings a batch filter selects (I13). */
  async match(filter: BatchFilter): Promise<BatchMatch> {
    const scoped = { ...filter, statuses: ['scheduled', 'confirmed'] as const };
    if (filter.customerId !== undefined) await this.customers.get(filter.customerId);
    if (filter.technicianId !== undefined) await this.technicians.get(filter.technicianId);
    const total = await this.queries.count(scoped);
    return { total, bookings: await this.queries.find(scoped, LIMITS.maxListed) };
  }
}
