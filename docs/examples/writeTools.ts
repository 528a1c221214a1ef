// The write tools of docs/defining-tools.md; the region below is quoted there verbatim.
import {
  type Authenticate,
  createGatehouse,
  defineGuard,
  MemoryAuditStore,
  MemoryReplayStore,
  separateCommits,
  ToolError,
} from '@gatehousejs/core';
import { versionGuard } from '@gatehousejs/guards';
import { definePresenter, field } from '@gatehousejs/presenters';
import { z } from 'zod';

/** A booking as the product stores it. */
export interface Booking {
  readonly id: string;
  readonly workspace: string;
  readonly customerId: string;
  readonly startsAt: string;
  note: string;
  revision: number;
}

/** The product's database (in memory here). */
export const db: Booking[] = [];

/** The product's booking service: the one write path, shared with the REST API. */
export class BookingService {
  constructor(readonly workspace: string) {}
  findSameStart(customerId: string, startsAt: string): Booking | undefined {
    return db.find(
      (b) => b.workspace === this.workspace && b.customerId === customerId && b.startsAt === startsAt,
    );
  }
  get(id: string): Booking {
    const booking = db.find((b) => b.workspace === this.workspace && b.id === id);
    if (!booking)
      throw new ToolError({ code: 'not_found', message: `No booking ${id}.`, fix: 'Find it first.' });
    return booking;
  }
  create(input: { customer_id: string; starts_at: string; note: string }): Booking {
    const booking = {
      id: `bk_${db.length + 1}`,
      workspace: this.workspace,
      customerId: input.customer_id,
      startsAt: input.starts_at,
      note: input.note,
      revision: 1,
    };
    db.push(booking);
    return booking;
  }
  update(id: string, note: string): Booking {
    const booking = this.get(id);
    booking.note = note;
    booking.revision += 1;
    return booking;
  }
}

type Services = { readonly bookings: BookingService };

const gh = createGatehouse({
  rights: ['bookings.write'] as const,
  // `unit` is the unit of work's handle for writes: a SQL host builds its services on it.
  services: (connection, _ports, _unit): Services => ({ bookings: new BookingService(connection.tenantId) }),
});

const bookingPresenter = definePresenter({
  name: 'booking',
  versioned: { revision: 'revision' },
  fields: { id: field.string(), starts_at: field.string().from('startsAt'), note: field.string() },
});

// #region write-tools
/** A stateless check on the validated input: a `call` guard. */
const businessHours = defineGuard<{ starts_at: string }>({
  name: 'businessHours',
  check: ({ input }) =>
    input.starts_at.slice(11, 13) < '08'
      ? {
          code: 'invalid_arguments',
          message: 'Bookings start at 08:00 or later.',
          fix: 'Pick a later start.',
        }
      : undefined,
});

export const createBooking = gh.defineTool({
  name: 'create_booking',
  description: 'Books a customer at a start time.',
  effect: 'write',
  requires: ['bookings.write'],
  input: z.object({ customer_id: z.string(), starts_at: z.string(), note: z.string().max(200) }),
  presenter: bookingPresenter,
  guards: [businessHours],
  creates: {
    key: (input) => ({ customer_id: input.customer_id, starts_at: input.starts_at }),
    find: ({ input, services }) => services.bookings.findSameStart(input.customer_id, input.starts_at),
    updateTool: 'update_booking',
    noun: 'booking',
  },
  run: ({ input, services }) => services.bookings.create(input),
});

export const updateBooking = gh.defineTool({
  name: 'update_booking',
  description: 'Replaces the note of a booking, given the version you read.',
  effect: 'write',
  requires: ['bookings.write'],
  input: z.object({ id: z.string(), note: z.string().max(200), version: z.string() }),
  presenter: bookingPresenter,
  // A check-then-act guard: it runs in the unit of work, on the services built for it.
  guards: [
    versionGuard<{ id: string }, Services>({
      current: ({ input, services, now }) => {
        const booking = services.bookings.get(input.id);
        return {
          version: bookingPresenter.versionOf(booking),
          object: bookingPresenter.present(booking, { now }),
        };
      },
    }),
  ],
  run: ({ input, services }) => services.bookings.update(input.id, input.note),
});
// #endregion write-tools

const authenticate: Authenticate<'bookings.write'> = async ({ token }) =>
  token === 'demo-token'
    ? {
        ok: true,
        connection: {
          connectionId: 'c1',
          tenantId: 'ws_1',
          creatorId: 'p1',
          clientName: 'demo',
          channel: 'mcp',
          rights: new Set(['bookings.write'] as const),
        },
      }
    : { ok: false, status: 401, reason: 'Unknown token.' };

// #region write-server
export const server = gh.createServer({
  name: 'bookings',
  version: '1.0.0',
  tools: [createBooking, updateBooking],
  authenticate,
  audit: new MemoryAuditStore(), // every write is audited (I15)
  replay: { store: new MemoryReplayStore() }, // a re-sent write answers its first result (I10)
  unitOfWork: separateCommits(), // memory stores commit on their own; SQL: stores.unitOfWork
});
// #endregion write-server
