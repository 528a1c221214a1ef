/**
 * The tools the guard docs quote: a small booking product in memory, with a
 * create tool (`g.duplicate`), an update tool (`g.version`, and a guard
 * written inline with the tool's types), a batch tool (`g.batchCount`), a
 * call guard and a unit guard of the host's own.
 */
import {
  ALLOW,
  type Authenticate,
  createGatehouse,
  defineGuard,
  deny,
  digest,
  ToolError,
} from '@gatehousejs/core';
import { toolGuards } from '@gatehousejs/guards';
import { z } from 'zod';

export interface Booking {
  id: string;
  tenantId: string;
  customer_id: string;
  start: string;
  revision: number;
}

/** The bookings of one tenant, as the product's services see them. */
export class Bookings {
  constructor(
    private readonly rows: Booking[],
    private readonly tenantId: string,
  ) {}
  lookup(id: string): Booking | undefined {
    return this.rows.find((b) => b.id === id && b.tenantId === this.tenantId);
  }
  get(id: string): Booking {
    const booking = this.lookup(id);
    if (booking) return booking;
    throw new ToolError({
      code: 'not_found',
      message: `Booking ${id} does not exist.`,
      fix: 'Find it first.',
      next: { tool: 'find_bookings' },
    });
  }
  findByKey(customerId: string, start: string): Booking | undefined {
    return this.rows.find(
      (b) => b.tenantId === this.tenantId && b.customer_id === customerId && b.start === start,
    );
  }
  matching(filter: { customer_id: string }): Booking[] {
    return this.rows.filter((b) => b.tenantId === this.tenantId && b.customer_id === filter.customer_id);
  }
  create(input: { customer_id: string; start: string }): Booking {
    const booking = { id: `bk_${this.rows.length + 1}`, tenantId: this.tenantId, ...input, revision: 1 };
    this.rows.push(booking);
    return booking;
  }
  move(booking: Booking, start: string): Booking {
    booking.start = start;
    booking.revision++;
    return booking;
  }
}

/** What tools and unit guards receive. */
export interface Services {
  readonly bookings: Bookings;
  readonly mailer: { send(to: string, text: string): void };
}

const RIGHTS = ['bookings.read', 'bookings.write', 'customers.notify'] as const;
type Right = (typeof RIGHTS)[number];

/** The booking product: its gatehouse, tools and authenticator, and the rows and mails tests look at. */
export function bookingProduct() {
  const rows: Booking[] = [];
  const mails: { to: string; text: string }[] = [];
  // #region ports-gatehouse
  const gh = createGatehouse({
    rights: RIGHTS,
    ports: {
      mailer: {
        effect: 'notify',
        port: { send: (to: string, text: string) => void mails.push({ to, text }) },
      },
    },
    services: (connection, ports): Services => ({
      bookings: new Bookings(rows, connection.tenantId),
      mailer: ports.mailer,
    }),
    toolGuards, // g.version, g.batchCount and g.duplicate in a tool's guards, typed by the tool
  });
  // #endregion ports-gatehouse

  const versionOf = (b: Booking) => digest({ revision: b.revision, id: b.id, start: b.start }).slice(0, 16);
  const present = (b: Booking) => ({
    id: b.id,
    customer_id: b.customer_id,
    start: b.start,
    version: versionOf(b),
  });
  const bookingSchema = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      customer_id: { type: 'string' },
      start: { type: 'string' },
      version: { type: 'string' },
    },
  };
  const bookingPresenter = {
    outputSchema: { type: 'object', properties: { booking: bookingSchema } },
    present: (b: Booking) => ({ booking: present(b) }),
  };
  const bookingsPresenter = {
    outputSchema: { type: 'object', properties: { bookings: { type: 'array', items: bookingSchema } } },
    present: (list: Booking[]) => ({ bookings: list.map(present) }),
  };

  // #region call-guard
  const businessHours = defineGuard({
    kind: 'call',
    name: 'businessHours',
    effects: ['notify', 'wake'], // omit for all classes
    check: ({ now }) => {
      const hour = now.getUTCHours();
      if (hour >= 7 && hour < 19) return ALLOW;
      return deny({
        code: 'tool_hidden',
        message: 'Outward actions are paused outside 07–19 UTC.',
        fix: 'Retry during business hours.',
      });
    },
  });
  // #endregion call-guard

  // #region unit-guard
  const notStarted = defineGuard<{ id: string }, Services>({
    kind: 'unit',
    name: 'notStarted',
    check: ({ input, services, now }) => {
      const booking = services.bookings.lookup(input.id);
      if (!booking || Date.parse(booking.start) > now.getTime()) return ALLOW;
      return deny({
        code: 'conflict',
        message: `Booking ${booking.id} has started; it can no longer be moved.`,
        fix: 'Create a follow-up booking instead.',
      });
    },
  });
  // #endregion unit-guard

  const createBookingInput = z.object({ customer_id: z.string(), start: z.string() });
  const updateBookingInput = z.object({ id: z.string(), version: z.string(), start: z.string() });
  const rescheduleInput = z.object({
    ids: z.array(z.string()).optional(),
    filter: z.object({ customer_id: z.string() }).optional(),
    expected_count: z.number().int().min(0).optional(),
    start: z.string(),
  });

  const tools = [
    gh.defineTool({
      name: 'find_bookings',
      description: 'Lists the bookings of a customer.',
      effect: 'read',
      requires: ['bookings.read'],
      input: z.object({ customer_id: z.string() }),
      presenter: bookingsPresenter,
      run: ({ input, services }) => services.bookings.matching(input),
    }),
    // #region creates
    gh.defineTool({
      name: 'create_booking',
      description: 'Books a customer at a start time.',
      effect: 'write',
      requires: ['bookings.write'],
      input: createBookingInput,
      presenter: bookingPresenter,
      guards: (g) => [
        g.duplicate({
          updateTool: 'update_booking',
          noun: 'booking',
          key: (input) => ({ customer_id: input.customer_id, start: input.start }),
          find: ({ input, services }) => services.bookings.findByKey(input.customer_id, input.start),
        }),
      ],
      run: ({ input, services }) => services.bookings.create(input),
    }),
    // #endregion creates
    gh.defineTool({
      name: 'update_booking',
      description: 'Moves a booking to a new start time.',
      effect: 'write',
      requires: ['bookings.write'],
      input: updateBookingInput,
      presenter: bookingPresenter,
      // #region tool-guards
      guards: (g) => [
        // #region version-guard
        g.version({
          field: 'version', // a key of the tool's input: a misspelt one does not compile
          readTool: 'find_bookings',
          current: ({ input, services }) => {
            const booking = services.bookings.lookup(input.id);
            if (!booking) return undefined;
            const object = present(booking); // as a read presents it, version included
            return { version: object.version, object };
          },
        }),
        // #endregion version-guard
        notStarted,
        g.define({
          kind: 'call',
          name: 'startsAhead',
          check: ({ input, now }) =>
            Date.parse(input.start) > now.getTime()
              ? ALLOW
              : deny({
                  code: 'invalid_arguments',
                  message: `A booking cannot move to ${input.start}: that time has passed.`,
                  fix: 'Choose a start in the future.',
                }),
        }),
      ],
      // #endregion tool-guards
      run: ({ input, services }) => services.bookings.move(services.bookings.get(input.id), input.start),
    }),
    gh.defineTool({
      name: 'reschedule_bookings',
      description: 'Moves several bookings to a new start time.',
      effect: 'write',
      requires: ['bookings.write'],
      input: rescheduleInput,
      presenter: bookingsPresenter,
      // #region batch
      guards: (g) => [
        g.batchCount({
          maxSize: 50,
          match: ({ input, services }) => {
            const found = input.filter ? services.bookings.matching(input.filter) : [];
            return {
              total: found.length,
              sample: found.slice(0, 20).map((b) => ({ id: b.id, start: b.start })),
            };
          },
        }),
      ],
      // #endregion batch
      run: ({ input, services }) => {
        const chosen = input.ids
          ? input.ids.map((id) => services.bookings.get(id))
          : input.filter
            ? services.bookings.matching(input.filter)
            : [];
        return chosen.map((b) => services.bookings.move(b, input.start));
      },
    }),
    gh.defineTool({
      name: 'remind_customer',
      title: 'Mail a customer',
      description: 'Mails the customer of a booking a reminder of its start time.',
      effect: 'notify',
      requires: ['customers.notify'],
      input: z.object({ booking_id: z.string() }),
      presenter: {
        outputSchema: { type: 'object', properties: { sent_to: { type: 'string' } } },
        present: (to: string) => ({ sent_to: to }),
      },
      guards: [businessHours],
      prepare: ({ input, services }) => {
        const b = services.bookings.get(input.booking_id);
        return {
          content: { to: b.customer_id, start: b.start },
          summary: `remind ${b.customer_id} of ${b.id}`,
        };
      },
      run: ({ input, services }) => {
        const b = services.bookings.get(input.booking_id);
        services.mailer.send(b.customer_id, `Your booking starts ${b.start}.`);
        return b.customer_id;
      },
    }),
  ];

  /** Every bearer is tenant t1's, with every right: the docs' servers are exercised in-process. */
  const authenticate: Authenticate<Right> = async () => ({
    ok: true,
    connection: {
      connectionId: 'conn_1',
      tenantId: 't1',
      creatorId: 'p1',
      clientName: 'docs',
      channel: 'mcp',
      rights: new Set(gh.rights),
    },
  });

  return { gh, tools, authenticate, rows, mails };
}
