import { type Connection, ToolError } from '@gatehouse/core';

/** The example's rights vocabulary. */
export const RIGHTS = ['bookings.read', 'bookings.write'] as const;
export type Right = (typeof RIGHTS)[number];

export interface Booking {
  readonly id: string;
  readonly tenantId: string;
  readonly customer: string;
  readonly startsAt: string;
  readonly createdBy: string;
  /** Internal: never presented. */
  readonly paymentReference: string;
}

/** The product's data, shared by every adapter (MCP here; a REST API would use the same services). */
export class BookingData {
  readonly bookings: Booking[] = [];
  #next = 1;

  nextId(): string {
    return `bk_${String(this.#next++).padStart(4, '0')}`;
  }
}

/**
 * Domain services, scoped to the calling connection's tenant. Every check
 * lives here, so any adapter inherits it (I1); the actor comes in as a
 * parameter, never from an ambient user (I2).
 */
export class BookingService {
  constructor(
    private readonly data: BookingData,
    private readonly connection: Connection<Right>,
  ) {}

  find(customer: string | undefined): Booking[] {
    const needle = customer?.toLowerCase();
    return this.data.bookings.filter(
      (b) =>
        b.tenantId === this.connection.tenantId && (!needle || b.customer.toLowerCase().includes(needle)),
    );
  }

  create(customer: string, startsAt: string): Booking {
    if (Date.parse(startsAt) < Date.now()) {
      throw new ToolError({
        code: 'invalid_arguments',
        message: `The start ${startsAt} is in the past.`,
        fix: 'Choose a start time in the future.',
        details: { starts_at: startsAt },
      });
    }
    const booking: Booking = {
      id: this.data.nextId(),
      tenantId: this.connection.tenantId,
      customer,
      startsAt,
      createdBy: this.connection.creatorId,
      paymentReference: `PAY-${Math.random().toString(36).slice(2)}`,
    };
    this.data.bookings.push(booking);
    return booking;
  }
}
