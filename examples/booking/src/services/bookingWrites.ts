import { ToolError } from '@gatehousejs/core';
import { type Money, withDefaultZone } from '@gatehousejs/presenters';
import type { Temporal } from 'temporal-polyfill';
import { newId } from '../db/ids.js';
import { type Booking, type BookingStatus, LIMITS } from '../domain/model.js';
import {
  checkDuration,
  checkLive,
  checkPrice,
  checkStart,
  checkTransition,
  staleVersion,
  technicianBusy,
} from './bookingRules.js';
import { type BatchFilter, BookingReads } from './bookings.js';
import { invalid } from './support.js';

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

interface Planned {
  readonly technicianId: string | null;
  readonly startMs: number;
  readonly zone: string;
  readonly durationMinutes: number;
  readonly price: Money;
  readonly status: BookingStatus;
}

/**
 * Bookings of the actor's workspace: reads and writes. Every check lives
 * here, so the REST API and the MCP tools inherit it (I1): ownership of the
 * customer and technician, tenant scoping, start in the future, duration
 * and price rules, status transitions, technician double-booking, and a
 * compare-and-set on the revision for updates (I12). Each write is one
 * transaction (a savepoint inside an MCP write's transaction).
 */
export class BookingService extends BookingReads {
  #now = () => this.deps.clock();

  /** A start sent with only a UTC offset keeps its instant and takes the workspace's zone. */
  #inWorkspaceZone = (time: Temporal.ZonedDateTime) => withDefaultZone(time, this.workspace.zone);

  /** Creates a booking after every check; returns it as stored. */
  create(input: NewBooking): Booking {
    return this.deps.db
      .transaction(() => {
        const customer = this.customers.get(input.customerId);
        const startsAt = this.#inWorkspaceZone(input.startsAt);
        const planned: Planned = {
          technicianId: input.technicianId,
          startMs: startsAt.epochMilliseconds,
          zone: startsAt.timeZoneId,
          durationMinutes: input.durationMinutes,
          price: input.price,
          status: 'scheduled',
        };
        checkStart(startsAt, this.#now());
        this.#check(planned, []);
        const id = newId('bk');
        const now = this.#now().getTime();
        this.deps.db
          .prepare(`INSERT INTO bookings (id, workspace_id, customer_id, technician_id, starts_at, zone, duration_minutes,
          status, price_minor, currency, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(
            id,
            this.workspace.id,
            customer.id,
            planned.technicianId,
            planned.startMs,
            planned.zone,
            planned.durationMinutes,
            planned.status,
            planned.price.minor,
            planned.price.currency,
            this.actor.personId,
            now,
            now,
          );
        return this.get(id);
      })
      .immediate();
  }

  /**
   * Changes a booking read at `version`; a stale version is `conflict` and changes nothing (I12).
   * The write increments the revision, so `version` never comes back, even when a change is undone.
   */
  update(id: string, version: string, changes: BookingChanges): Booking {
    return this.deps.db
      .transaction(() => {
        const current = this.get(id);
        const currentVersion = this.versionOf(current);
        if (currentVersion !== version) throw staleVersion(current, currentVersion);
        if (Object.values(changes).every((value) => value === undefined)) {
          throw invalid('The update changes nothing.', 'Send at least one field to change.');
        }
        checkLive(current);
        if (changes.status !== undefined) checkTransition(current, changes.status);
        const startsAt =
          changes.startsAt === undefined ? current.startsAt : this.#inWorkspaceZone(changes.startsAt);
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
        this.#check(planned, [id]);
        this.#write(current, planned);
        return this.get(id);
      })
      .immediate();
  }

  /** Moves the selected live bookings by `shiftMinutes`, all or none (I13). */
  reschedule(selection: BatchSelection, shiftMinutes: number): Booking[] {
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
    return this.deps.db
      .transaction(() => {
        const targets = this.#select(selection);
        const ids = targets.map((b) => b.id);
        for (const booking of targets) {
          checkLive(booking);
          const startsAt = booking.startsAt.add({ minutes: shiftMinutes });
          checkStart(startsAt, this.#now());
          const planned = { ...this.#plannedOf(booking), startMs: startsAt.epochMilliseconds };
          this.#check(planned, ids);
          this.#write(booking, planned);
        }
        return ids.map((id) => this.get(id));
      })
      .immediate();
  }

  /** The booking a delete would remove, after the checks; nothing is deleted. */
  planDelete(id: string): Booking {
    const booking = this.get(id);
    if (booking.status === 'completed') {
      throw invalid(
        `Booking ${id} is completed; it is kept as a record.`,
        'Only scheduled, confirmed or cancelled bookings can be deleted.',
      );
    }
    return booking;
  }

  /** Deletes a booking (its sent messages stay in the outbound log). */
  remove(id: string): Booking {
    return this.deps.db
      .transaction(() => {
        const booking = this.planDelete(id);
        this.deps.db
          .prepare('DELETE FROM bookings WHERE id = ? AND workspace_id = ?')
          .run(id, this.workspace.id);
        return booking;
      })
      .immediate();
  }

  #plannedOf(booking: Booking): Planned {
    return {
      technicianId: booking.technician?.id ?? null,
      startMs: booking.startsAt.epochMilliseconds,
      zone: booking.startsAt.timeZoneId,
      durationMinutes: booking.durationMinutes,
      price: booking.price,
      status: booking.status,
    };
  }

  #select(selection: BatchSelection): Booking[] {
    if ('ids' in selection) return [...new Set(selection.ids)].map((id) => this.get(id));
    const found = this.match(selection.filter);
    if (found.total !== selection.expectedCount || found.total > found.bookings.length) {
      throw new ToolError({
        code: 'batch_count_mismatch',
        message: `The filter matches ${found.total} bookings, not ${selection.expectedCount}; nothing changed.`,
        fix: 'Check the matches in details, then send explicit ids or the right expected_count.',
        details: { total: found.total, matches: found.bookings.map((b) => b.id) },
      });
    }
    return [...found.bookings];
  }

  /** Ownership of the technician, duration, price, and no double-booking. */
  #check(planned: Planned, except: readonly string[]): void {
    checkDuration(planned.durationMinutes);
    checkPrice(planned.price, this.workspace);
    if (planned.technicianId === null) return;
    const technician = this.technicians.get(planned.technicianId);
    const end = planned.startMs + planned.durationMinutes * 60_000;
    const busy = this.queries.overlapping(technician.id, planned.startMs, end, except);
    if (busy && planned.status !== 'cancelled') throw technicianBusy(technician.name, busy);
  }

  /**
   * Every write of a booking row: compare-and-set on the revision the caller's state was read
   * at, incrementing it in the same statement; a concurrent writer makes this a `conflict`.
   */
  #write(current: Booking, planned: Planned): void {
    const changed = this.deps.db
      .prepare(`UPDATE bookings SET technician_id = ?, starts_at = ?, zone = ?, duration_minutes = ?, price_minor = ?,
        currency = ?, status = ?, revision = revision + 1, updated_at = ? WHERE id = ? AND workspace_id = ? AND revision = ?`)
      .run(
        planned.technicianId,
        planned.startMs,
        planned.zone,
        planned.durationMinutes,
        planned.price.minor,
        planned.price.currency,
        planned.status,
        this.#now().getTime(),
        current.id,
        this.workspace.id,
        current.revision,
      );
    if (changed.changes !== 1) throw staleVersion(current, this.versionOf(this.get(current.id)));
  }
}
