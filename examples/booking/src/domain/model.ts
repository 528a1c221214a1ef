import type { Money } from '@gatehousejs/presenters';
import type { Temporal } from 'temporal-polyfill';
import type { BookingDb } from '../db/tables.js';

/** The rights vocabulary of the booking product: what a role may do, in the UI, the API and over MCP. */
export const RIGHTS = [
  'customers.read',
  'bookings.read',
  'bookings.write',
  'bookings.delete',
  'customers.notify',
  'technicians.page',
  'alerts.manage',
] as const;

/** One right of {@link RIGHTS}. */
export type Right = (typeof RIGHTS)[number];

/** Staff roles inside a workspace. */
export const ROLES = ['owner', 'dispatcher', 'viewer'] as const;

/** One role of {@link ROLES}. */
export type Role = (typeof ROLES)[number];

const READ: readonly Right[] = ['customers.read', 'bookings.read'];

/** The rights each role grants; an MCP token never holds more than its creator's role grants now (I4). */
export const ROLE_RIGHTS: Readonly<Record<Role, readonly Right[]>> = Object.freeze({
  owner: RIGHTS,
  dispatcher: [...READ, 'bookings.write', 'customers.notify', 'technicians.page'],
  viewer: READ,
});

/** A staff member's rights, or none when deactivated. */
export function rightsOf(role: Role, active: boolean): readonly Right[] {
  return active ? ROLE_RIGHTS[role] : [];
}

/** The life of a booking. */
export const BOOKING_STATUSES = ['scheduled', 'confirmed', 'completed', 'cancelled'] as const;

/** One status of {@link BOOKING_STATUSES}. */
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/** Which status may follow which; `completed` and `cancelled` are final. */
export const STATUS_TRANSITIONS: Readonly<Record<BookingStatus, readonly BookingStatus[]>> = Object.freeze({
  scheduled: ['confirmed', 'cancelled'],
  confirmed: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
});

/** Limits the services enforce for every adapter (UI, REST, MCP). */
export const LIMITS = Object.freeze({
  minDurationMinutes: 15,
  maxDurationMinutes: 480,
  /** A booking may start at most this many days ahead. */
  maxDaysAhead: 365,
  /** A batch reschedule moves bookings by at most a week either way. */
  maxShiftMinutes: 7 * 24 * 60,
  /** Alerts may be muted for at most a day. */
  maxMuteHours: 24,
  maxListed: 50,
});

/** A tenant. */
export interface Workspace {
  readonly id: string;
  readonly name: string;
  /** IANA zone bookings are shown in by default. */
  readonly zone: string;
  /** ISO 4217 currency of every price in the workspace. */
  readonly currency: string;
}

/** A staff member of one workspace. */
export interface Person {
  readonly id: string;
  readonly workspaceId: string;
  readonly name: string;
  readonly email: string;
  readonly role: Role;
  readonly active: boolean;
  /** May flip the global kill switch from the admin page. */
  readonly operator: boolean;
}

/** Who acts, through which channel: every service call takes it as a parameter (I2). */
export interface Actor {
  readonly workspaceId: string;
  readonly personId: string;
  readonly channel: 'mcp' | 'api' | 'cli' | 'admin';
}

/** A customer; `notes` are written by the customer (third-party text, I16). */
export interface Customer {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string | null;
  readonly notes: string | null;
  readonly createdAt: Temporal.ZonedDateTime;
  /** Increments on every write, so its `version` never repeats (I12). */
  readonly revision: number;
}

/** A technician who visits customers. */
export interface Technician {
  readonly id: string;
  readonly name: string;
  readonly onCall: boolean;
}

/** A booking as the services return it: references resolved, times zoned, price as money. */
export interface Booking {
  readonly id: string;
  readonly customer: { readonly id: string; readonly name: string };
  readonly technician: { readonly id: string; readonly name: string } | null;
  readonly startsAt: Temporal.ZonedDateTime;
  readonly endsAt: Temporal.ZonedDateTime;
  readonly durationMinutes: number;
  readonly status: BookingStatus;
  readonly price: Money;
  readonly createdBy: string;
  readonly createdAt: Temporal.ZonedDateTime;
  /** Increments on every write, so its `version` never repeats; the services compare-and-set on it (I12). */
  readonly revision: number;
}

/** An alert rule whose notifications can be muted for a while. */
export interface AlertRule {
  readonly id: string;
  readonly name: string;
  readonly mutedUntil: Temporal.ZonedDateTime | null;
  readonly muteReason: string | null;
}

/** A mail as it leaves through the mailer port. */
export interface OutboundMail {
  readonly workspaceId: string;
  readonly bookingId: string;
  readonly customerId: string;
  readonly to: string;
  readonly subject: string;
  readonly body: string;
  readonly sentBy: string;
}

/** A page as it leaves through the pager port. */
export interface OutboundPage {
  readonly workspaceId: string;
  readonly technicianId: string;
  readonly bookingId: string | null;
  readonly message: string;
  readonly sentBy: string;
}

/** A mute as it is applied through the alerts port. */
export interface AlertMute {
  readonly workspaceId: string;
  readonly ruleIds: readonly string[];
  readonly untilMs: number;
  readonly reason: string;
  readonly mutedBy: string;
}

/** What a port reports after sending: the outbound row's id and when it left. */
export interface Receipt {
  readonly id: string;
  readonly atMs: number;
}

/**
 * The outbound side effects, each of one effect class (I8): mails notify,
 * pages wake, mutes alert. Each takes the connection of the caller's
 * transaction (`via`), so what it records commits with the action that caused it.
 */
export interface OutboundPorts {
  readonly mailer: { send(mail: OutboundMail, via: BookingDb): Promise<Receipt> };
  readonly pager: { send(page: OutboundPage, via: BookingDb): Promise<Receipt> };
  readonly alerts: { mute(mute: AlertMute, via: BookingDb): Promise<Receipt> };
}
