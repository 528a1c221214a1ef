import { moneyInput, timeInput } from '@gatehousejs/presenters';
import { z } from 'zod';
import { BOOKING_STATUSES, LIMITS } from './domain/model.js';
import type { BookingFilter } from './services/bookingQueries.js';
import type { NewBooking } from './services/bookingWrites.js';
import { MAIL_KINDS } from './services/outreach.js';

/**
 * Argument shapes shared by the REST API and the MCP tools, so both adapters
 * validate the same way (I14); the services then check the business rules
 * (I1). Times per I20 (`timeInput`: local time + IANA zone, or ISO 8601 with
 * an offset), prices in minor units or decimal strings (`moneyInput`). No
 * shape here parses a zone, a time or an amount itself: those two cap what
 * they read before parsing (zone and time 64 characters, amount 32). A time
 * sent with only an offset comes out in that fixed-offset zone; the service
 * that keeps it settles it into the workspace's zone at the same instant
 * (`withDefaultZone`), so no fixed offset is ever stored as a zone.
 */
const id = (what: string) => z.string().min(1).max(64).describe(`The ${what} id.`);

const duration = z
  .int()
  .min(LIMITS.minDurationMinutes)
  .max(LIMITS.maxDurationMinutes)
  .describe('Length of the visit in minutes.');

/** Finds customers by part of their name or e-mail. */
export const findCustomersInput = z.object({
  query: z.string().max(100).optional().describe('Part of the name or e-mail; all customers when absent.'),
  limit: z.int().min(1).max(LIMITS.maxListed).default(20).describe('How many to return.'),
});

/** One customer. */
export const getCustomerInput = z.object({ id: id('customer') });

/** Technicians, optionally only those on call. */
export const findTechniciansInput = z.object({
  on_call: z.boolean().optional().describe('true: only technicians on call now.'),
});

/** Bookings by customer, technician, status and time window. */
export const findBookingsInput = z.object({
  customer_id: id('customer').optional(),
  technician_id: id('technician').optional(),
  status: z.enum(BOOKING_STATUSES).optional(),
  from: timeInput({ description: 'Only bookings starting at or after this time.' }).optional(),
  to: timeInput({ description: 'Only bookings starting before this time.' }).optional(),
  limit: z.int().min(1).max(LIMITS.maxListed).default(20).describe('How many to return.'),
});

/** A booking search as the service takes it. */
export const bookingFilterOf = (input: z.output<typeof findBookingsInput>): BookingFilter => ({
  customerId: input.customer_id,
  technicianId: input.technician_id,
  statuses: input.status ? [input.status] : undefined,
  fromMs: input.from?.epochMilliseconds,
  toMs: input.to?.epochMilliseconds,
});

/** One booking. */
export const getBookingInput = z.object({ id: id('booking') });

/** A new booking. */
export const createBookingInput = z.object({
  customer_id: id('customer'),
  technician_id: id('technician').optional(),
  starts_at: timeInput({
    description: 'When the visit starts: local time with IANA zone, or ISO 8601 with offset.',
  }),
  duration_minutes: duration,
  price: moneyInput(),
});

/** A new booking as the service takes it. */
export const newBookingOf = (input: z.output<typeof createBookingInput>): NewBooking => ({
  customerId: input.customer_id,
  technicianId: input.technician_id ?? null,
  startsAt: input.starts_at,
  durationMinutes: input.duration_minutes,
  price: input.price,
});

/** Changes to a booking read at `version`. */
export const updateBookingInput = z.object({
  id: id('booking'),
  version: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .describe('The version of the booking as last read (get_booking or find_bookings).'),
  technician_id: id('technician').nullable().optional().describe('Another technician, or null for none.'),
  starts_at: timeInput({
    description: 'A new start: local time with IANA zone, or ISO 8601 with offset.',
  }).optional(),
  duration_minutes: duration.optional(),
  price: moneyInput().optional(),
  status: z.enum(BOOKING_STATUSES).optional().describe('scheduled → confirmed → completed; or cancelled.'),
});

/** Moves several bookings by the same amount: explicit ids, or a filter with the expected count (I13). */
export const rescheduleBookingsInput = z.object({
  ids: z.array(id('booking')).min(1).max(LIMITS.maxListed).optional().describe('The bookings to move.'),
  filter: z
    .object({
      technician_id: id('technician').optional(),
      customer_id: id('customer').optional(),
      from: timeInput({ description: 'Bookings starting at or after this time.' }),
      to: timeInput({ description: 'Bookings starting before this time.' }),
    })
    .optional()
    .describe('Selects live bookings instead of ids.'),
  expected_count: z.int().min(0).optional().describe('How many bookings the filter is expected to match.'),
  shift_minutes: z.int().describe('Minutes to move each booking by; negative moves earlier.'),
});

/** A mail to the customer of a booking. */
export const notifyCustomerInput = z.object({
  booking_id: id('booking'),
  kind: z.enum(MAIL_KINDS).default('reminder').describe('reminder or confirmation.'),
  note: z.string().max(500).optional().describe('A short personal line added to the mail.'),
});

/** A page to an on-call technician. */
export const pageTechnicianInput = z.object({
  technician_id: id('technician'),
  booking_id: id('booking').optional(),
  message: z.string().min(1).max(300).describe('What the technician reads on the pager.'),
});

/** Mutes alert rules until a time. */
export const muteAlertsInput = z.object({
  rule_ids: z
    .array(id('alert rule'))
    .min(1)
    .max(20)
    .optional()
    .describe('The rules to mute; every rule when absent.'),
  until: timeInput({ description: 'When the mute ends (at most 24 hours ahead).' }),
  reason: z.string().min(3).max(200).describe('Why, for the alert log.'),
});

/** Deletes one booking. */
export const deleteBookingInput = z.object({ booking_id: id('booking') });
