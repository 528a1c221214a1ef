import { type Money, withDefaultZone } from '@gatehousejs/presenters';
import type { Temporal } from 'temporal-polyfill';
import { newId } from '../db/ids.js';
import { DomainError } from '../domain/errors.js';
import { type Booking, type BookingStatus, LIMITS } from '../domain/model.js';
import {
  checkDuration,
  checkLive,
  checkPrice,
  checkStart,
  checkTransition,
  type Planned,
  plannedOf,
  staleVersion,
  technicianBusy,
} from './bookingRules.js';
import { type BatchFilter, BookingReads } from './bookings.js';
import { invalid, type ServiceDeps } from './support.js';

/** A new booking as every adapter hands it to the service. */
export interface NewBooking {
  readonly customerId: string;
  readonly technicianId: string | null;
  readonly startsAt: Temporal.ZonedDateTime;
  readonly durationMinutes: number;
  readonly price: Money;
}

/** The fields an update may change; absent ones stay. */
export interface BookingChanges {
  readonly technicianId?: string | null | undefined;
  readonly startsAt?: Temporal.ZonedDateTime | undefined;
  readonly durationMinutes?: number | undefined;
  readonly price?: Money | undefined;
  readonly status?: BookingStatus | undefined;
}

/** Which bookings a batch moves: explicit ids, or a filter and the count the caller expects (I13). */
export type BatchSelection =
  | { readonly ids: readonly string[] }
  | { readonly filter: BatchFilter; readonly expectedCount: number };

/**
 * Bookings of the actor's workspace: reads and writes. Every check lives
 * here, so the REST API and the MCP tools inherit it (I1): ownership of the
 * customer and technician, tenant scoping, start in the future, duration
 * and price rules, status transitions, technician double-booking, and a
 * compare-and-set on the revision for updates (I12). Each write is one
 * transaction (a savepoint inside an MCP write's unit of work, else a unit
 * of its own); on PostgreSQL the technician is locked before the overlap
 * check, so no two processes book one technician twice.
 */
export class BookingService extends BookingReads {
  #now = () => this.deps.clock();

  /** These services again, bound to the transaction `deps` belongs to. */
  #in(deps: ServiceDeps): BookingService {
    return new BookingService(deps, this.actor);
  }

  /** A start sent with only a UTC offset keeps its instant and takes the workspace's zone. */
  async #inWorkspaceZone(time: Temporal.ZonedDateTime): Promise<Temporal.ZonedDateTime> {
    return withDefaultZone(time, (await this.workspace()).zone);
  }

  /** Creates a booking after every check; returns it as stored. */
  create(input: NewBooking): Promise<Booking> {
    return this.deps.transaction((deps) => this.#in(deps).#create(input));
  }

  async #create(input: NewBooking): Promise<Booking> {
    const customer = await this.customers.get(input.customerId);
    const startsAt = await this.#inWorkspaceZone(input.startsAt);
    const planned: Planned = {
      technicianId: input.technicianId,
      startMs: startsAt.epochMilliseconds,
      zone: startsAt.timeZoneId,
      durationMinutes: input.durationMinutes,
      price: input.price,
      status: 'scheduled',
    };
    checkStart(startsAt, this.#now());
    await this.#check(planned, []);
    const id = newId('bk');
    const now = this.#now().getTime();
    await this.deps.db
      .insertInto('bookings')
      .values({
        id,
        workspace_id: this.actor.workspaceId,
        customer_id: customer.id,
        technician_id: planned.technicianId,
        starts_at: planned.startMs,
        zone: planned.zone,
        duration_minutes: planned.durationMinutes,
        status: planned.status,
        price_minor: planned.price.minor,
        currency: planned.price.currency,
        created_by: this.actor.personId,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return this.get(id);
  }

  /**
   * Changes a booking read at `version`; a stale version is `conflict` and changes nothing (I12).
   * The write increments the revision, so `version` never comes back, even when a change is undone.
   */
  update(id: string, version: string, changes: BookingChanges): Promise<Booking> {
    return this.deps.transaction((deps) => this.#in(deps).#update(id, version, changes));
  }

  async #update(id: string, version: string, changes: BookingChanges): Promise<Booking> {
    const current = await this.get(id);
    const currentVersion = this.versionOf(current);
    if (currentVersion !== version) throw staleVersion(current, currentVersion);
    if (Object.values(changes).every((value) => value === undefined)) {
      throw invalid('The update changes nothing.', 'Send at least one field to change.');
    }
    checkLive(current);
    if (changes.status !== undefined) checkTransition(current, changes.status);
    const startsAt =
      changes.startsAt === undefined ? current.startsAt : await this.#inWorkspaceZone(changes.startsAt);
    if (changes.startsAt !== undefined) checkStart(startsAt, this.#now());
    const planned: Planned = {
      technicianId:
        changes.technicianId === undefined ? (current.technician?.id ?? null) : changes.technicianId,
      startMs: startsAt.epochMilliseconds,
      zone: startsAt.timeZoneId,
      durationMinutes: changes.durationMinutes ?? current.durationMinutes,
      price: changes.price ?? current.price,
      status: changes.status ?? current.status,
    };
    await this.#check(planned, [id]);
    await this.#write(current, planned);
    return this.get(id);
  }

  /** Moves the selected live bookings by `shiftMinutes`, all or none (I13). */
  async reschedule(selection: BatchSelection, shiftMinutes: number): Promise<Booking[]> {
    if (
      !Number.isInteger(shiftMinutes) ||
      shiftMinutes === 0 ||
      Math.abs(shiftMinutes) > LIMITS.maxShiftMinutes
    ) {
      throw invalid(
        `A reschedule moves bookings by 1 to ${LIMITS.maxShiftMinutes} minutes, earlier or later; ${shiftMinutes} is outside.`,
        'Send shift_minutes as a non-zero whole number within a week either way.',
      );
    }
    return this.deps.transaction((deps) => this.#in(deps).#reschedule(selection, shiftMinutes));
  }

  async #reschedule(selection: BatchSelection, shiftMinutes: number): Promise<Booking[]> {
    const targets = await this.#select(selection);
    const ids = targets.map((b) => b.id);
    for (const booking of targets) {
      checkLive(booking);
      const startsAt = booking.startsAt.add({ minutes: shiftMinutes });
      checkStart(startsAt, this.#now());
      const planned = { ...plannedOf(booking), startMs: startsAt.epochMilliseconds };
      await this.#check(planned, ids);
      await this.#write(booking, planned);
    }
    const moved: Booking[] = [];
    for (const id of ids) moved.push(await this.get(id));
    return moved;
  }

  /** The booking a delete would remove, after the checks; nothing is deleted. */
  async planDelete(id: string): Promise<Booking> {
    const booking = await this.get(id);
    if (booking.status === 'completed') {
      throw invalid(
        `Booking ${id} is completed; it is kept as a record.`,
        'Only scheduled, confirmed or cancelled bookings can be deleted.',
      );
    }
    return booking;
  }

  /** Deletes a booking (its sent messages stay in the outbound log). */
  remove(id: string): Promise<Booking> {
    return this.deps.transaction(async (deps) => {
      const booking = await this.#in(deps).planDelete(id);
      await deps.db
        .deleteFrom('bookings')
        .where('id', '=', id)
        .where('workspace_id', '=', this.actor.workspaceId)
        .execute();
      return booking;
    });
  }

  async #select(selection: BatchSelection): Promise<Booking[]> {
    if ('ids' in selection) {
      const found: Booking[] = [];
      for (const id of new Set(selection.ids)) found.push(await this.get(id));
      return found;
    }
    const found = await this.match(selection.filter);
    if (found.total !== selection.expectedCount || found.total > found.bookings.length) {
      throw new DomainError({
        kind: 'count_mismatch',
        message: `The filter matches ${found.total} bookings, not ${selection.expectedCount}; nothing changed.`,
        fix: 'Check the matches in details, then send explicit ids or the right expected_count.',
        details: { total: found.total, matches: found.bookings.map((b) => b.id) },
      });
    }
    return [...found.bookings];
  }

  /** Ownership of the technician (locked on PostgreSQL), duration, price, and no double-booking. */
  async #check(planned: Planned, except: readonly string[]): Promise<void> {
    checkDuration(planned.durationMinutes);
    checkPrice(planned.price, await this.workspace());
    if (planned.technicianId === null) return;
    const technician = await this.technicians.get(planned.technicianId);
    const end = planned.startMs + planned.durationMinutes * 60_000;
    const busy = await this.queries.overlapping(technician.id, planned.startMs, end, except);
    if (busy && planned.status !== 'cancelled') throw technicianBusy(technician.name, busy);
  }

  /**
   * Every write of a booking row: compare-and-set on the revision the caller's state was read
   * at, incrementing it in the same statement; a concurrent writer makes this a `conflict`.
   */
  async #write(current: Booking, planned: Planned): Promise<void> {
    const changed = await this.deps.db
      .updateTable('bookings')
      .set((eb) => ({
        technician_id: planned.technicianId,
        starts_at: planned.startMs,
        zone: planned.zone,
        duration_minutes: planned.durationMinutes,
        price_minor: planned.price.minor,
        currency: planned.price.currency,
        status: planned.status,
        revision: eb('revision', '+', 1),
        updated_at: this.#now().getTime(),
      }))
      .where('id', '=', current.id)
      .where('workspace_id', '=', this.actor.workspaceId)
      .where('revision', '=', current.revision)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) {
      throw staleVersion(current, this.versionOf(await this.get(current.id)));
    }
  }
}
