/** A ticket as stored: the requester's text is third-party text, the portal key a secret. */
export interface Ticket {
  readonly id: string;
  readonly workspaceId: string;
  /** Written by staff; the business key of the duplicate check (one ticket per title and workspace). */
  readonly title: string;
  /** Written by the requester: untrusted, shown only inside an `untrusted_text` wrapper (I16). */
  readonly body: string;
  /** Personal data. */
  readonly requesterEmail: string;
  /** The secret of the requester's own link to the ticket: never leaves the server (I17). */
  readonly portalKey: string;
  readonly status: TicketStatus;
  readonly createdBy: string;
  /** Grows with every write of the row, so a version never repeats (I12). */
  readonly revision: number;
}

export const TICKET_STATUSES = ['open', 'waiting', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** A mail the product sent, as its outbox records it. */
export interface Mail {
  readonly id: string;
  readonly workspaceId: string;
  readonly ticketId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly sentAt: number;
}

/** What went wrong, in the domain's words; the MCP adapter maps each kind to a tool error code. */
export type TicketErrorKind = 'not_found' | 'rule_broken';

/**
 * A refusal of the ticket service: the same error reaches every channel
 * (MCP, a REST API, a CLI), each adapter rendering it its own way.
 */
export class TicketError extends Error {
  constructor(
    readonly kind: TicketErrorKind,
    message: string,
    /** What to do instead, in one sentence. */
    readonly fix: string,
  ) {
    super(message);
    this.name = 'TicketError';
  }

  static is(error: unknown): error is TicketError {
    return error instanceof Error && error.name === 'TicketError' && 'kind' in error && 'fix' in error;
  }
}

/** A new id with a readable prefix: `tk_…` for tickets, `ml_…` for mails. */
export const newId = (prefix: 'tk' | 'ml'): string => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`;
