// The write tools of docs/defining-tools.md; the regions below are quoted there verbatim.
import { createSwitches } from '@gatehousejs/access';
import {
  ALLOW,
  type Authenticate,
  allow,
  createGatehouse,
  deny,
  MemoryAuditStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
  ToolError,
} from '@gatehousejs/core';
import { standardGuards, toolGuards } from '@gatehousejs/guards';
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
    return this.setNote(this.get(id), note);
  }
  setNote(booking: Booking, note: string): Booking {
    booking.note = note;
    booking.revision += 1;
    return booking;
  }
}

// #region write-gatehouse
type Services = { readonly bookings: BookingService };

const gh = createGatehouse({
  rights: ['bookings.write'] as const,
  // `unit` is the unit of work's handle for writes: a SQL host builds its services on it.
  services: (connection, _ports, _unit): Services => ({ bookings: new BookingService(connection.tenantId) }),
  toolGuards, // g.duplicate, g.version and g.batchCount in a tool's guards
});
// #endregion write-gatehouse

const bookingPresenter = definePresenter({
  name: 'booking',
  versioned: { revision: 'revision' },
  fields: { id: field.string(), starts_at: field.string().from('startsAt'), note: field.string() },
});

// #region write-tools
export const createBooking = gh.defineTool({
  name: 'create_booking',
  description: 'Books a customer at a start time.',
  effect: 'write',
  requires: ['bookings.write'],
  input: z.object({ customer_id: z.string(), starts_at: z.string(), note: z.string().max(200) }),
  presenter: bookingPresenter,
  guards: (g) => [
    // A stateless check on the validated input: a `call` guard, before the replay claim.
    g.define({
      kind: 'call',
      name: 'businessHours',
      check: ({ input }) =>
        input.starts_at.slice(11, 13) < '08'
          ? deny({
              code: 'invalid_arguments',
              message: 'Bookings start at 08:00 or later.',
              fix: 'Pick a later start.',
            })
          : ALLOW,
    }),
    // A create tool's duplicate check (I11): one booking per customer and start.
    g.duplicate({
      key: (input) => ({ customer_id: input.customer_id, starts_at: input.starts_at }),
      find: ({ input, services }) => services.bookings.findSameStart(input.customer_id, input.starts_at),
      updateTool: 'update_booking',
      noun: 'booking',
    }),
  ],
  run: ({ input, services }) => services.bookings.create(input),
});

export const updateBooking = gh.defineTool({
  name: 'update_booking',
  description: 'Replaces the note of a booking, given the version you read.',
  effect: 'write',
  requires: ['bookings.write'],
  input: z.object({ id: z.string(), note: z.string().max(200), version: z.string() }),
  presenter: bookingPresenter,
  guards: (g) => [
    // A check-then-act guard: it runs in the unit of work, on the services built for it.
    g.version({
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

// #region guard-context
export const appendNote = gh.defineTool({
  name: 'append_note',
  description: 'Adds a line to the note of a booking.',
  effect: 'write',
  requires: ['bookings.write'],
  input: z.object({ id: z.string(), line: z.string().max(200) }),
  presenter: bookingPresenter,
  guards: (g) => [
    g.define({
      kind: 'unit',
      name: 'noteLength',
      check: ({ input, services }) => {
        const booking = services.bookings.get(input.id);
        const note = `${booking.note}\n${input.line}`;
        if (note.length > 200)
          return deny({
            code: 'invalid_arguments',
            message: `The note of ${booking.id} would pass 200 characters.`,
            fix: 'Shorten the line, or replace the note with update_booking.',
          });
        return allow({ booking, note }); // what run receives as context
      },
    }),
  ],
  run: ({ services, context }) => services.bookings.setNote(context.booking, context.note),
});
// #endregion guard-context

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
const audit = new MemoryAuditStore(); // every write is audited (I15), and every switch flipped
const switches = createSwitches({ store: new MemorySwitchStore(), audit });
// A re-sent write answers its first result (I10); each connection has a bucket per effect class (I7).
const stores = { replay: new MemoryReplayStore(), rateBuckets: new MemoryRateBucketStore() };

export const server = gh.createServer({
  name: 'bookings',
  version: '1.0.0',
  tools: [createBooking, updateBooking, appendNote],
  authenticate,
  guards: standardGuards(stores, { switches }),
  audit,
  unitOfWork: separateCommits(), // memory stores commit on their own; SQL: stores.unitOfWork
});
// #endregion write-server
