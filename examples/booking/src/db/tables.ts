import type { Generated, Kysely } from 'kysely';

/** A 0/1 flag: SQLite INTEGER and PostgreSQL SMALLINT read the same, so one code path reads both. */
export type Flag = 0 | 1;

/** The product's tables as Kysely sees them (timestamps are epoch milliseconds on both engines). */
export interface BookingTables {
  workspaces: {
    id: string;
    name: string;
    zone: string;
    currency: string;
    created_at: number;
  };
  people: {
    id: string;
    workspace_id: string;
    name: string;
    email: string;
    role: string;
    active: Generated<Flag>;
    operator: Generated<Flag>;
    password_hash: string | null;
    created_at: number;
  };
  /**
   * A person's work in a workspace other than their own (`people.workspace_id`),
   * with the role they hold there: one sign-in, several workspaces.
   */
  memberships: {
    person_id: string;
    workspace_id: string;
    role: string;
    active: Generated<Flag>;
    created_at: number;
  };
  customers: {
    id: string;
    workspace_id: string;
    name: string;
    email: string;
    phone: string | null;
    notes: string | null;
    portal_password_hash: string | null;
    payment_reference: string | null;
    created_at: number;
    revision: Generated<number>;
  };
  technicians: {
    id: string;
    workspace_id: string;
    name: string;
    phone: string;
    on_call: Generated<Flag>;
  };
  bookings: {
    id: string;
    workspace_id: string;
    customer_id: string;
    technician_id: string | null;
    starts_at: number;
    zone: string;
    duration_minutes: number;
    status: string;
    price_minor: number;
    currency: string;
    revision: Generated<number>;
    created_by: string;
    created_at: number;
    updated_at: number;
  };
  alert_rules: {
    id: string;
    workspace_id: string;
    name: string;
    muted_until: number | null;
    mute_reason: string | null;
    muted_by: string | null;
  };
  outbound_messages: {
    id: string;
    workspace_id: string;
    booking_id: string;
    customer_id: string;
    to_address: string;
    subject: string;
    body: string;
    sent_by: string;
    sent_at: number;
  };
  outbound_pages: {
    id: string;
    workspace_id: string;
    technician_id: string;
    booking_id: string | null;
    to_phone: string;
    message: string;
    sent_by: string;
    sent_at: number;
  };
  alert_mutes: {
    id: string;
    workspace_id: string;
    rule_id: string;
    muted_until: number;
    reason: string;
    muted_by: string;
    at: number;
  };
  api_tokens: {
    id: string;
    token_hash: string;
    person_id: string;
    label: string;
    created_at: number;
    revoked_at: number | null;
  };
  sessions: {
    token_hash: string;
    person_id: string;
    created_at: number;
    expires_at: number;
  };
  /** The Gatehouse stores' authorization server records (read by tests and the CLI; written through the store). */
  gatehouse_oauth_records: {
    model: string;
    id: string;
    payload: string;
    grant_id: string | null;
    uid: string | null;
    user_code: string | null;
    expires_at: number | null;
    consumed_at: number | null;
  };
  /** The Gatehouse stores' authorization server keys, generated once and shared by replicas. */
  gatehouse_oauth_keys: {
    name: string;
    value: string;
    created_at: number;
  };
  gatehouse_credentials: {
    id: string;
    client_label: string;
    revoked_at: number | null;
    created_at: number;
  };
}

/** A Kysely over the product's tables: the pool or file for reads, or one unit of work's connection. */
export type BookingDb = Kysely<BookingTables>;
