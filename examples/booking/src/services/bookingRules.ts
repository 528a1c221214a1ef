import { type Money, presentInstant } from '@gatehousejs/presenters';
import type { Temporal } from 'temporal-polyfill';
import { DomainError } from '../domain/errors.js';
import {
  type Booking,
  type BookingStatus,
  LIMITS,
  STATUS_TRANSITIONS,
  type Workspace,
} from '../domain/model.js';
import { invalid, quoted, spokenTime } from './support.js';

const DAY_MS = 86_400_000;

/** A start must lie in the future, and at most {@link LIMITS.maxDaysAhead} days ahead. */
export function checkStart(start: Temporal.ZonedDateTime, now: Date): void {
  const at = start.epochMilliseconds;
  const details = { starts_at: presentInstant(start, { now }) };
  if (at <= now.getTime()) {
    throw invalid(
      `The start ${spokenTime(start)} is in the past.`,
      'Choose a start time in the future.',
      details,
    );
  }
  if (at > now.getTime() + LIMITS.maxDaysAhead * DAY_MS) {
    throw invalid(
      `The start ${spokenTime(start)} is more than ${LIMITS.maxDaysAhead} days ahead.`,
      `Choose a start within the next ${LIMITS.maxDaysAhead} days.`,
      details,
    );
  }
}

/** A duration is a whole number of minutes within the limits. */
export function checkDuration(minutes: number): void {
  const { minDurationMinutes: min, maxDurationMinutes: max } = LIMITS;
  if (!Number.isInteger(minutes) || minutes < min || minutes > max) {
    throw invalid(
      `A booking lasts ${min} to ${max} minutes, not ${minutes}.`,
      `Send duration_minutes between ${min} and ${max}.`,
    );
  }
}

/** Prices are in the workspace's currency and never negative. */
export function checkPrice(price: Money, workspace: Workspace): void {
  if (price.currency !== workspace.currency) {
    throw invalid(
      `Prices in ${workspace.name} are in ${workspace.currency}, not ${price.currency}.`,
      `Send the price in ${workspace.currency}.`,
      { currency: workspace.currency },
    );
  }
  if (price.minor < 0) throw invalid('A price cannot be negative.', 'Send a price of zero or more.');
}

/** Only the transitions of {@link STATUS_TRANSITIONS}; a final booking changes no more. */
export function checkTransition(booking: Booking, to: BookingStatus): void {
  if (booking.status === to) return;
  const allowed = STATUS_TRANSITIONS[booking.status];
  if (!allowed.includes(to)) {
    const options = allowed.length > 0 ? `It can become ${allowed.join(' or ')}.` : 'It is final.';
    throw invalid(
      `Booking ${booking.id} is ${booking.status} and cannot become ${to}.`,
      `${options} Send a status it can move to.`,
      { status: booking.status, allowed: [...allowed] },
    );
  }
}

/** Only live bookings (scheduled, confirmed) move or change. */
export function checkLive(booking: Booking): void {
  if (booking.status === 'scheduled' || booking.status === 'confirmed') return;
  throw invalid(
    `Booking ${booking.id} is ${booking.status}; it can no longer change.`,
    'Create a new booking with create_booking instead.',
    { status: booking.status },
  );
}

/** The refusal for a technician who is busy at that time. */
export function technicianBusy(technician: string, other: Booking): DomainError {
  return invalid(
    `${technician} is already booked then: ${other.id} starts ${spokenTime(other.startsAt)} and lasts ${other.durationMinutes} minutes.`,
    'Choose another time or technician; find_bookings with technician_id lists their bookings.',
    { conflicting_booking_id: other.id },
  );
}

/** The refusal for a version that is no longer current (I12). */
export function staleVersion(booking: Booking, currentVersion: string): DomainError {
  return new DomainError({
    kind: 'stale',
    message: `Booking ${booking.id} changed since it was read.`,
    fix: `Read it again with get_booking, check that the change still applies, and send version ${quoted(currentVersion)}.`,
    next: { operation: 'get_booking', arguments: { id: booking.id } },
    details: { current_version: currentVersion },
  });
}

/** What a write will store for a booking: the values every check runs on. */
export interface Planned {
  readonly technicianId: string | null;
  readonly startMs: number;
  readonly zone: string;
  readonly durationMinutes: number;
  readonly price: Money;
  readonly status: BookingStatus;
}

/** The stored values of a booking, as a plan to change. */
export function plannedOf(booking: Booking): Planned {
  return {
    technicianId: booking.technician?.id ?? null,
    startMs: booking.startsAt.epochMilliseconds,
    zone: booking.startsAt.timeZoneId,
    durationMinutes: booking.durationMinutes,
    price: booking.price,
    status: booking.status,
  };
}
