import type {
  AuditStore,
  CredentialDirectory,
  CredentialStore,
  PendingActionStore,
  RateBucketStore,
  ReplayStore,
  SwitchStore,
  UnitOfWork,
} from '@gatehousejs/core';
import type { Mail, Ticket, TicketStatus } from '../tickets/model.js';

/** The tickets of one workspace: every method reads and writes inside it only (I3). */
export interface TicketRepository {
  /** Tickets whose title contains `titleContains` (any case), by title, at most `limit`. */
  find(titleContains: string | undefined, limit: number): Promise<Ticket[]>;
  get(id: string): Promise<Ticket | undefined>;
  byTitle(title: string): Promise<Ticket | undefined>;
  insert(ticket: Ticket): Promise<void>;
  /** Writes the changes and counts the revision up; `undefined` when the ticket is not there. */
  update(
    id: string,
    changes: { readonly title: string; readonly status: TicketStatus },
  ): Promise<Ticket | undefined>;
  remove(id: string): Promise<boolean>;
}

/** Where sent mail is recorded (a real product hands it to its mail service too). */
export interface Outbox {
  append(mail: Mail): Promise<void>;
}

/** Gatehouse's stores on the product's database: one role each. */
export interface GatehouseStores {
  readonly replay: ReplayStore;
  readonly pendingActions: PendingActionStore;
  readonly audit: AuditStore;
  readonly switches: SwitchStore;
  readonly rateBuckets: RateBucketStore;
  readonly credentials: CredentialStore & CredentialDirectory;
}

/** Every row of every workspace, for operators and tests; and edits made outside MCP. */
export interface AllRows {
  tickets(): Promise<Ticket[]>;
  mails(): Promise<Mail[]>;
  /** Changes a ticket as the product's own pages would (the revision counts up). */
  patch(id: string, fields: Partial<Pick<Ticket, 'title' | 'body' | 'portalKey'>>): Promise<void>;
}

/**
 * The product's database and Gatehouse's stores in it. `THandle` is the
 * unit of work's handle: inside an MCP write, `tickets(workspace, unit)`
 * works on it, so the ticket, its audit row and its replay record commit
 * together (or, in memory, one after the other).
 */
export interface Database<THandle = unknown> {
  readonly engine: 'memory' | 'sqlite' | 'postgres';
  /** Where the data lives, for the start banner (never a password). */
  readonly location: string;
  readonly stores: GatehouseStores;
  readonly unitOfWork: UnitOfWork<THandle>;
  tickets(workspaceId: string, unit: THandle | undefined): TicketRepository;
  readonly outbox: Outbox;
  readonly all: AllRows;
  /** Deletes expired replay records, pending actions and rate buckets; run it from a timer. */
  housekeeping(now: number): Promise<void>;
  close(): Promise<void>;
}

// #if sqlite|postgres
/** A ticket as the SQL databases store it, one column per field. */
export interface TicketRow {
  id: string;
  workspace_id: string;
  title: string;
  body: string;
  requester_email: string;
  portal_key: string;
  status: TicketStatus;
  created_by: string;
  revision: number;
}

/** A sent mail as the SQL databases store it. */
export interface MailRow {
  id: string;
  workspace_id: string;
  ticket_id: string;
  to_address: string;
  subject: string;
  text: string;
  sent_at: number;
}

export const ticketOf = (row: TicketRow): Ticket => ({
  id: row.id,
  workspaceId: row.workspace_id,
  title: row.title,
  body: row.body,
  requesterEmail: row.requester_email,
  portalKey: row.portal_key,
  status: row.status,
  createdBy: row.created_by,
  revision: row.revision,
});

export const mailOf = (row: MailRow): Mail => ({
  id: row.id,
  workspaceId: row.workspace_id,
  ticketId: row.ticket_id,
  to: row.to_address,
  subject: row.subject,
  text: row.text,
  sentAt: row.sent_at,
});
// #endif

/** The tickets every new database starts with: two per workspace. */
export const SEED_TICKETS: readonly Ticket[] = [
  seed('tk_acme_boiler', 'ws_acme', 'Boiler makes a knocking noise', 'ada.customer@example.com'),
  seed('tk_acme_invoice', 'ws_acme', 'Invoice 2291 charged twice', 'grace@example.com'),
  seed('tk_globex_leak', 'ws_globex', 'Leaking valve in unit 4', 'linus@example.com'),
  seed('tk_globex_login', 'ws_globex', 'Cannot sign in to the portal', 'ken@example.com'),
];

function seed(id: string, workspaceId: string, title: string, requesterEmail: string): Ticket {
  return {
    id,
    workspaceId,
    title,
    body: `Hello, ${title.toLowerCase()}. Could someone look at it this week?`,
    requesterEmail,
    portalKey: `pk_${id}`,
    status: 'open',
    createdBy: workspaceId === 'ws_acme' ? 'p_ada' : 'p_bea',
    revision: 0,
  };
}
