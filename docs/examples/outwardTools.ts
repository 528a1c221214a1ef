// The outward tools of docs/confirm.md and docs/approval.md; the regions below are quoted there verbatim.
import { createSwitches } from '@gatehousejs/access';
import {
  type Authenticate,
  type Connection,
  createGatehouse,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
  ToolError,
} from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import { z } from 'zod';

const RIGHTS = ['bookings.delete', 'customers.notify'] as const;
type Right = (typeof RIGHTS)[number];

/** A booking as the product stores it. */
export interface Booking {
  readonly id: string;
  readonly workspace: string;
  readonly customerEmail: string;
  readonly startsAt: string;
}

/** The product's database and the mailer's outbox (in memory here). */
export const db: Booking[] = [
  { id: 'bk_1', workspace: 'ws_1', customerEmail: 'ada@example.com', startsAt: '2030-05-04T09:00:00Z' },
  { id: 'bk_2', workspace: 'ws_1', customerEmail: 'bob@example.com', startsAt: '2030-05-05T09:00:00Z' },
];
export const outbox: { to: string; text: string }[] = [];

interface Mailer {
  send(to: string, text: string): void;
}

/** The product's booking service: renders a mail without sending it, sends it through the mailer port. */
export class BookingService {
  constructor(
    readonly workspace: string,
    private readonly mailer: Mailer,
  ) {}
  get(id: string): Booking {
    const booking = db.find((b) => b.workspace === this.workspace && b.id === id);
    if (!booking)
      throw new ToolError({ code: 'not_found', message: `No booking ${id}.`, fix: 'Find it first.' });
    return booking;
  }
  reminderMail(id: string): { to: string; text: string } {
    const booking = this.get(id);
    return { to: booking.customerEmail, text: `Your visit starts at ${booking.startsAt}.` };
  }
  sendReminder(id: string): { sent_to: string } {
    const mail = this.reminderMail(id);
    this.mailer.send(mail.to, mail.text); // the `notify` port: closed until the call is confirmed
    return { sent_to: mail.to };
  }
  delete(id: string): { deleted: string } {
    db.splice(db.indexOf(this.get(id)), 1);
    return { deleted: id };
  }
}

type Services = { readonly bookings: BookingService };

const gh = createGatehouse({
  rights: RIGHTS,
  ports: {
    mailer: {
      effect: 'notify',
      port: { send: (to: string, text: string) => void outbox.push({ to, text }) },
    },
  },
  services: (connection, ports): Services => ({
    bookings: new BookingService(connection.tenantId, ports.mailer),
  }),
});

const sentPresenter = {
  outputSchema: { type: 'object', properties: { sent_to: { type: 'string' } } },
  present: (sent: { sent_to: string }) => sent,
};
const deletedPresenter = {
  outputSchema: { type: 'object', properties: { deleted: { type: 'string' } } },
  present: (done: { deleted: string }) => done,
};

// #region confirm-tool
export const notifyCustomer = gh.defineTool({
  name: 'notify_customer',
  title: 'Mail a customer',
  description: 'Mails the customer of a booking a reminder of its start time.',
  effect: 'notify',
  requires: ['customers.notify'],
  input: z.object({ booking_id: z.string() }),
  presenter: sentPresenter,
  prepare: ({ input, services }) => {
    const mail = services.bookings.reminderMail(input.booking_id); // renders, sends nothing
    return { content: mail, summary: `mail ${mail.to} about ${input.booking_id}` };
  },
  run: ({ input, services }) => services.bookings.sendReminder(input.booking_id),
});
// #endregion confirm-tool

// #region person-tool
export const deleteBooking = gh.defineTool({
  name: 'delete_booking',
  title: 'Delete a booking',
  description: 'Deletes a booking.',
  effect: 'delete',
  requires: ['bookings.delete'],
  approval: 'person', // or for a whole class: approval: { byEffect: { delete: 'person' }, … } below
  input: z.object({ booking_id: z.string() }),
  presenter: deletedPresenter,
  prepare: ({ input, services }) => {
    const booking = services.bookings.get(input.booking_id);
    return { content: { ...booking }, summary: `delete ${booking.id} of ${booking.customerEmail}` };
  },
  run: ({ input, services }) => services.bookings.delete(input.booking_id),
});
// #endregion person-tool

/** The connection of the one MCP token of this example. */
export const ada: Connection<Right> = {
  connectionId: 'conn_1',
  tenantId: 'ws_1',
  creatorId: 'p_ada',
  clientName: 'docs',
  channel: 'mcp',
  rights: new Set(RIGHTS),
};

const authenticate: Authenticate<Right> = async ({ token }) =>
  token === 'demo-token'
    ? { ok: true, connection: ada }
    : { ok: false, status: 401, reason: 'Unknown token.' };

/** The requesting credential as it stands now: the host's credential service answers this. */
const credentials = {
  connectionById: async (id: string, tenantId: string) =>
    id === ada.connectionId && tenantId === ada.tenantId ? ada : undefined,
};

const audit = new MemoryAuditStore();
const switches = createSwitches({ store: new MemorySwitchStore(), audit });

// #region confirm-server
const stores = {
  replay: new MemoryReplayStore(), // confirm_action is a write: a re-sent confirmation is a replay (I10)
  pendingActions: new MemoryPendingActionStore(), // SQL: stores.pendingActions of @gatehousejs/stores
};

export const server = gh.createServer({
  name: 'bookings',
  version: '1.0.0',
  tools: [notifyCustomer, deleteBooking],
  authenticate,
  audit, // every confirmed action is audited (I15)
  unitOfWork: separateCommits(), // memory stores commit on their own; SQL: stores.unitOfWork
  guards: standardGuards(stores, {
    switches,
    // the outward guard, confirmGuard({ store: stores.pendingActions, …these options })
    confirm: {
      ttlMs: 10 * 60_000, // a preview can be confirmed for 10 minutes
      leaseMs: 10_000, // a confirmation's claim on its action lasts 10 s without a renewal
      renewMs: 2_000, // and is renewed every 2 s while the confirmation runs
      // #region approval
      approval: {
        url: (id) => `https://booking.example/approvals/${encodeURIComponent(id)}`,
        connectionOf: credentials.connectionById, // the requesting token as it stands now
        approvers: 'creator', // default; 'workspace': anyone of the tenant holding the tool's rights now
      },
      // #endregion approval
    },
  }),
});
// #endregion confirm-server
