import { formatMoney, sanitizeText } from '@gatehousejs/presenters';
import type { Temporal } from 'temporal-polyfill';
import type { Actor, OutboundPorts } from '../domain/model.js';
import { BookingReads } from './bookings.js';
import { CustomerService } from './customers.js';
import { invalid, type ServiceDeps, spokenTime, workspaceOf, zoned } from './support.js';
import { TechnicianService } from './technicians.js';

/** The kinds of mail a customer can be sent about a booking. */
export const MAIL_KINDS = ['reminder', 'confirmation'] as const;

/** One kind of {@link MAIL_KINDS}. */
export type MailKind = (typeof MAIL_KINDS)[number];

/** A mail exactly as it would leave: rendered by the service, shown in the preview, sent on confirmation. */
export interface MailDraft {
  readonly bookingId: string;
  readonly customerId: string;
  /** When the visit starts, for the preview beside the text. */
  readonly startsAt: Temporal.ZonedDateTime;
  readonly to: string;
  readonly subject: string;
  readonly body: string;
}

/** A page exactly as it would leave. */
export interface PageDraft {
  readonly technicianId: string;
  readonly technicianName: string;
  readonly bookingId: string | null;
  /** When the booking paged about starts, for the preview beside the text. */
  readonly startsAt: Temporal.ZonedDateTime | null;
  readonly message: string;
}

/** What was sent, and when. */
export interface Delivery {
  readonly id: string;
  readonly to: string;
  readonly sentAt: Temporal.ZonedDateTime;
}

const SUBJECTS: Readonly<Record<MailKind, string>> = { reminder: 'Reminder', confirmation: 'Confirmed' };

/**
 * Mails to customers and pages to technicians. Drafts are pure renderings
 * of the current data (the same data renders the same draft, so a preview
 * can be compared at confirmation, I9); sending goes through the ports,
 * which Gatehouse opens only for confirmed calls of the right class (I8).
 */
export class OutreachService {
  readonly #bookings: BookingReads;
  readonly #technicians: TechnicianService;
  readonly #customers: CustomerService;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly actor: Actor,
    private readonly ports: Pick<OutboundPorts, 'mailer' | 'pager'>,
  ) {
    this.#bookings = new BookingReads(deps, actor);
    this.#technicians = new TechnicianService(deps, actor);
    this.#customers = new CustomerService(deps, actor);
  }

  /** Renders the mail about a live booking to its customer; nothing is sent. */
  async draftMail(bookingId: string, kind: MailKind, note: string | undefined): Promise<MailDraft> {
    const booking = await this.#bookings.get(bookingId);
    if (booking.status === 'cancelled' || booking.status === 'completed') {
      throw invalid(
        `Booking ${booking.id} is ${booking.status}; there is nothing to remind of or confirm.`,
        'Mail customers only about scheduled or confirmed bookings.',
      );
    }
    const customer = await this.#customers.get(booking.customer.id);
    const workspace = await workspaceOf(this.deps, this.actor);
    const technician = booking.technician ? `, with ${booking.technician.name}` : '';
    const lines = [
      `Hello ${booking.customer.name},`,
      '',
      `${kind === 'reminder' ? 'This is a reminder of' : 'We confirm'} your visit on ${spokenTime(booking.startsAt)}, ${booking.durationMinutes} minutes${technician}. Price: ${formatMoney(booking.price, { locale: 'en-GB' })}. Reference: ${booking.id}.`,
      ...(note ? ['', sanitizeText(note).trim()] : []),
      '',
      workspace.name,
    ];
    return {
      bookingId: booking.id,
      customerId: booking.customer.id,
      startsAt: booking.startsAt,
      to: customer.email,
      subject: `${SUBJECTS[kind]}: your visit on ${booking.startsAt.toPlainDate().toString()}`,
      body: lines.join('\n'),
    };
  }

  /** Sends a drafted mail through the mailer port, in one transaction (the outbox row commits with the call). */
  async sendMail(draft: MailDraft): Promise<Delivery> {
    const { startsAt: _, ...mail } = draft;
    const receipt = await this.deps.transaction((deps) =>
      this.ports.mailer.send(
        { ...mail, workspaceId: this.actor.workspaceId, sentBy: this.actor.personId },
        deps.db,
      ),
    );
    return { id: receipt.id, to: draft.to, sentAt: await this.#zoned(receipt.atMs) };
  }

  async #zoned(ms: number): Promise<Temporal.ZonedDateTime> {
    return zoned(ms, (await workspaceOf(this.deps, this.actor)).zone);
  }

  /** Renders a page to an on-call technician, optionally about a booking; nothing is sent. */
  async draftPage(technicianId: string, bookingId: string | undefined, message: string): Promise<PageDraft> {
    const technician = await this.#technicians.get(technicianId);
    if (!technician.onCall) {
      const onCall = (await this.#technicians.find(true)).map((t) => t.id);
      throw invalid(
        `${technician.name} is not on call.`,
        `Page a technician who is on call${onCall.length ? `: ${onCall.join(', ')}` : ''}.`,
        {
          on_call: onCall,
        },
      );
    }
    const booking = bookingId === undefined ? undefined : await this.#bookings.get(bookingId);
    const about = booking
      ? ` [${booking.id}, ${booking.customer.name}, ${spokenTime(booking.startsAt)}]`
      : '';
    return {
      technicianId: technician.id,
      technicianName: technician.name,
      bookingId: booking?.id ?? null,
      startsAt: booking?.startsAt ?? null,
      message: `${sanitizeText(message).trim()}${about}`,
    };
  }

  /** Sends a drafted page through the pager port, in one transaction. */
  async sendPage(draft: PageDraft): Promise<Delivery> {
    const page = {
      workspaceId: this.actor.workspaceId,
      technicianId: draft.technicianId,
      bookingId: draft.bookingId,
      message: draft.message,
      sentBy: this.actor.personId,
    };
    const receipt = await this.deps.transaction((deps) => this.ports.pager.send(page, deps.db));
    return { id: receipt.id, to: draft.technicianName, sentAt: await this.#zoned(receipt.atMs) };
  }
}
