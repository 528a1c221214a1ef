import { definePresenter, field } from '@gatehousejs/presenters';
import { BOOKING_STATUSES } from './domain/model.js';
import type { Versions } from './services/support.js';

/**
 * What leaves the server, field by field (I17). Secret columns (a customer's
 * portal password hash and payment reference, a technician's phone) are not
 * listed, so they never leave. The UI's REST API and the MCP tools present
 * with the same lists.
 */
const customerFields = {
  id: field.string(),
  name: field.string().personal(),
  email: field.string().personal(),
  phone: field.string().personal().nullable(),
  notes: field.untrustedText({ maxLength: 1000 }).nullable().describe('Written by the customer.'),
  created_at: field.instant().from('createdAt'),
};

const bookingFields = {
  id: field.string(),
  customer: field.object({ id: field.string(), name: field.string().personal() }),
  technician: field.object({ id: field.string(), name: field.string() }).nullable(),
  starts_at: field.instant().from('startsAt'),
  ends_at: field.instant().from('endsAt'),
  duration_minutes: field.integer().from('durationMinutes'),
  status: field.enum(BOOKING_STATUSES),
  price: field.money({ locale: 'en-GB' }),
  created_by: field.string().from('createdBy'),
  created_at: field.instant().from('createdAt'),
};

const technicianFields = {
  id: field.string(),
  name: field.string(),
  on_call: field.boolean().from('onCall'),
};

const alertRuleFields = {
  id: field.string(),
  name: field.string(),
  muted_until: field.instant().nullable().from('mutedUntil'),
  mute_reason: field.string().nullable().from('muteReason'),
};

const deliveryFields = {
  id: field.string(),
  to: field.string().personal(),
  sent_at: field.instant().from('sentAt'),
};

/**
 * Customers and bookings carry a `revision` counter every write increments;
 * their `version` hashes the presented content and that revision, so it never
 * repeats for one object, even when a change is undone (I12). The revision
 * itself is not a listed field and does not leave.
 */
const byRevision = { revision: 'revision' } as const;

/** One customer, with `version` (I12) and the customer's notes as untrusted text (I16). */
export const customerPresenter = definePresenter({
  name: 'customer',
  versioned: byRevision,
  fields: customerFields,
});

/** A list of customers. */
export const customerListPresenter = definePresenter({
  name: 'customers',
  fields: { customers: field.list(field.object(customerFields, { versioned: byRevision })) },
});

/** One booking, with `version` (I12), times per I20 and the price in minor units. */
export const bookingPresenter = definePresenter({
  name: 'booking',
  versioned: byRevision,
  fields: bookingFields,
});

/** A list of bookings. */
export const bookingListPresenter = definePresenter({
  name: 'bookings',
  fields: { bookings: field.list(field.object(bookingFields, { versioned: byRevision })) },
});

/** A deleted booking, as it was. */
export const deletedBookingPresenter = definePresenter({
  name: 'deleted',
  fields: { deleted: field.object(bookingFields) },
});

/** A list of technicians; their phone numbers stay inside. */
export const technicianListPresenter = definePresenter({
  name: 'technicians',
  fields: { technicians: field.list(field.object(technicianFields)) },
});

/** Alert rules after a mute. */
export const alertRuleListPresenter = definePresenter({
  name: 'alert_rules',
  fields: { rules: field.list(field.object(alertRuleFields)) },
});

const reference = field.object({ id: field.string() });

/** A sent mail and the booking it was about (its id lands in the audit row). */
export const mailSentPresenter = definePresenter({
  name: 'mail',
  fields: { message: field.object(deliveryFields), booking: reference },
});

/** A sent page, the technician paged and the booking it was about, if any. */
export const pageSentPresenter = definePresenter({
  name: 'page',
  fields: { page: field.object(deliveryFields), technician: reference, booking: reference.nullable() },
});

/** The version definition the services compare: the presenters' hash of content and revision (I12). */
export const versions: Versions = {
  booking: (booking) => bookingPresenter.versionOf(booking),
  customer: (customer) => customerPresenter.versionOf(customer),
};
