import type { ToolDefinition } from '@gatehousejs/core';
import type { Right } from '../../domain/model.js';
import type { Services } from '../../services/index.js';
import type { BookingGatehouse } from '../gatehouse.js';
import { alertTools } from './alerts.js';
import { bookingReadTools } from './bookings.js';
import { bookingWriteTools } from './bookingWrites.js';
import { customerTools } from './customers.js';
import { deleteBookingTools } from './deleteBooking.js';
import { outreachTools } from './outreach.js';
import { technicianTools } from './technicians.js';

/** Every tool of the booking product, in the order `tools/list` shows them. */
export function bookingTools(gh: BookingGatehouse): ToolDefinition<Right, Services>[] {
  return [
    ...customerTools(gh),
    ...technicianTools(gh),
    ...bookingReadTools(gh),
    ...bookingWriteTools(gh),
    ...outreachTools(gh),
    ...alertTools(gh),
    ...deleteBookingTools(gh),
  ];
}

/** The small toolset for small models (I7), chosen per token with `--toolset compact`. */
export const COMPACT_TOOLSET: readonly string[] = [
  'find_customers',
  'get_customer',
  'find_bookings',
  'get_booking',
  'create_booking',
  'update_booking',
  'list_recent_changes',
];
