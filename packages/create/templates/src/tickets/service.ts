import type { TicketRepository } from '../db/database.js';
import { type Mail, newId, type Ticket, TicketError, type TicketStatus } from './model.js';

/** Who acts: the workspace and the person, passed in by every channel (never an ambient user, I2). */
export interface Actor {
  readonly workspaceId: string;
  readonly personId: string;
}

/** Sends a mail and records it; the MCP adapter hands the service a guarded one (I8). */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** A mail as it would go out. */
export interface MailDraft {
  readonly ticketId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const broken = (message: string, fix: string) => new TicketError('rule_broken', message, fix);

/**
 * NUL (U+0000): PostgreSQL text cannot hold it, so no ticket has one in any
 * store. Text holding it is refused, and an id or a query holding it finds
 * nothing, before any database sees it.
 */
const hasNul = (...texts: (string | undefined)[]) => texts.some((text) => text?.includes('\u0000'));

function checkText(...texts: string[]): void {
  if (hasNul(...texts))
    throw broken('Text may not hold the NUL character (U+0000).', 'Remove it and send again.');
}

function checkTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length === 0 || trimmed.length > 120)
    throw broken('A title has 1 to 120 characters.', 'Shorten or fill in the title.');
  return trimmed;
}

/**
 * The ticket desk's one write path per operation (I1): the MCP tools call
 * it, as a REST API or the product's pages would. Its checks protect the
 * data whatever the channel; its repository is bound to the actor's
 * workspace, so an id of another workspace is simply not found (I3).
 */
export class TicketService {
  constructor(
    private readonly tickets: TicketRepository,
    private readonly actor: Actor,
    private readonly mailer: Mailer,
  ) {}

  async find(query: string | undefined): Promise<Ticket[]> {
    if (hasNul(query)) return [];
    return this.tickets.find(query?.trim() || undefined, 50);
  }

  async get(id: string): Promise<Ticket> {
    const ticket = hasNul(id) ? undefined : await this.tickets.get(id);
    if (!ticket)
      throw new TicketError(
        'not_found',
        `Ticket ${id} does not exist in this workspace.`,
        'Search with find_tickets and use an id it returns.',
      );
    return ticket;
  }

  async findByTitle(title: string): Promise<Ticket | undefined> {
    return hasNul(title) ? undefined : this.tickets.byTitle(title.trim());
  }

  async create(input: { title: string; body: string; requesterEmail: string }): Promise<Ticket> {
    checkText(input.title, input.body, input.requesterEmail);
    if (input.body.length > 4000) throw broken('A ticket body has at most 4000 characters.', 'Shorten it.');
    if (!EMAIL.test(input.requesterEmail))
      throw broken('The requester e-mail is not an address.', 'Give an address such as name@example.com.');
    const ticket: Ticket = {
      id: newId('tk'),
      workspaceId: this.actor.workspaceId,
      title: checkTitle(input.title),
      body: input.body,
      requesterEmail: input.requesterEmail,
      portalKey: `pk_${crypto.randomUUID().replaceAll('-', '')}`,
      status: 'open',
      createdBy: this.actor.personId,
      revision: 0,
    };
    await this.tickets.insert(ticket);
    return ticket;
  }

  async update(id: string, changes: { title?: string; status?: TicketStatus }): Promise<Ticket> {
    checkText(changes.title ?? '');
    const ticket = await this.get(id);
    const updated = await this.tickets.update(id, {
      title: changes.title === undefined ? ticket.title : checkTitle(changes.title),
      status: changes.status ?? ticket.status,
    });
    if (!updated) return this.get(id);
    return updated;
  }

  /** The mail to the requester of a ticket, rendered; nothing is sent. */
  async draftMail(ticketId: string, message: string): Promise<MailDraft> {
    const ticket = await this.get(ticketId);
    checkText(message);
    if (message.trim().length === 0) throw broken('The message is empty.', 'Write the message to send.');
    return {
      ticketId,
      to: ticket.requesterEmail,
      subject: `Re: ${ticket.title} [${ticket.id}]`,
      text: message,
    };
  }

  /** Renders the mail and sends it. */
  async sendMail(ticketId: string, message: string): Promise<Mail> {
    const draft = await this.draftMail(ticketId, message);
    const mail: Mail = { ...draft, id: newId('ml'), workspaceId: this.actor.workspaceId, sentAt: Date.now() };
    await this.mailer.send(mail);
    return mail;
  }
  // #if console

  /** Deletes a ticket; the mails sent about it stay in the outbox. */
  async delete(id: string): Promise<Ticket> {
    const ticket = await this.get(id);
    await this.tickets.remove(id);
    return ticket;
  }
  // #endif
}
