import type pg from 'pg';
import { PRODUCT_SCHEMA_VERSION } from './schema.js';

/** One step of the product's PostgreSQL schema; the versions match the SQLite ones. */
interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The product's own tables on PostgreSQL, beside the `gatehouse_` ones:
 * the same columns, constraints and indexes as on SQLite, with BIGINT
 * epoch-millisecond timestamps and money, and SMALLINT 0/1 flags (so rows
 * read the same on both engines).
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'booking product',
    sql: `
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  zone TEXT NOT NULL,
  currency TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE people (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'dispatcher', 'viewer')),
  active SMALLINT NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  operator SMALLINT NOT NULL DEFAULT 0 CHECK (operator IN (0, 1)),
  password_hash TEXT,
  created_at BIGINT NOT NULL
);
CREATE TABLE customers (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  phone TEXT,
  notes TEXT,
  portal_password_hash TEXT,
  payment_reference TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX customers_workspace_name ON customers (workspace_id, name);
CREATE TABLE technicians (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  name TEXT NOT NULL,
  phone TEXT NOT NULL,
  on_call SMALLINT NOT NULL DEFAULT 0 CHECK (on_call IN (0, 1))
);
CREATE TABLE bookings (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  customer_id TEXT NOT NULL REFERENCES customers (id),
  technician_id TEXT REFERENCES technicians (id),
  starts_at BIGINT NOT NULL,
  zone TEXT NOT NULL,
  duration_minutes INTEGER NOT NULL CHECK (duration_minutes BETWEEN 15 AND 480),
  status TEXT NOT NULL CHECK (status IN ('scheduled', 'confirmed', 'completed', 'cancelled')),
  price_minor BIGINT NOT NULL CHECK (price_minor >= 0),
  currency TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 1,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX bookings_workspace_start ON bookings (workspace_id, starts_at);
CREATE INDEX bookings_customer_start ON bookings (workspace_id, customer_id, starts_at);
CREATE INDEX bookings_technician_start ON bookings (technician_id, starts_at);
CREATE TABLE alert_rules (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  name TEXT NOT NULL,
  muted_until BIGINT,
  mute_reason TEXT,
  muted_by TEXT
);
CREATE TABLE outbound_messages (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  booking_id TEXT NOT NULL,
  customer_id TEXT NOT NULL,
  to_address TEXT NOT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  sent_by TEXT NOT NULL,
  sent_at BIGINT NOT NULL
);
CREATE TABLE outbound_pages (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  technician_id TEXT NOT NULL,
  booking_id TEXT,
  to_phone TEXT NOT NULL,
  message TEXT NOT NULL,
  sent_by TEXT NOT NULL,
  sent_at BIGINT NOT NULL
);
CREATE TABLE alert_mutes (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  rule_id TEXT NOT NULL,
  muted_until BIGINT NOT NULL,
  reason TEXT NOT NULL,
  muted_by TEXT NOT NULL,
  at BIGINT NOT NULL
);
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  person_id TEXT NOT NULL REFERENCES people (id),
  label TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  person_id TEXT NOT NULL REFERENCES people (id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_expiry ON sessions (expires_at);
`,
  },
  {
    version: 2,
    name: 'customer revision',
    sql: 'ALTER TABLE customers ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;',
  },
  {
    version: 3,
    name: 'oauth authorization server',
    sql: `
CREATE TABLE oauth_payloads (
  model TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  user_code TEXT,
  expires_at BIGINT,
  consumed_at BIGINT,
  PRIMARY KEY (model, id)
);
CREATE INDEX oauth_payloads_grant ON oauth_payloads (grant_id);
CREATE INDEX oauth_payloads_uid ON oauth_payloads (uid);
CREATE INDEX oauth_payloads_user_code ON oauth_payloads (user_code);
CREATE INDEX oauth_payloads_expiry ON oauth_payloads (expires_at);
CREATE TABLE oauth_keys (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'workspace memberships',
    sql: `
CREATE TABLE memberships (
  person_id TEXT NOT NULL REFERENCES people (id),
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  role TEXT NOT NULL CHECK (role IN ('owner', 'dispatcher', 'viewer')),
  active SMALLINT NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  created_at BIGINT NOT NULL,
  PRIMARY KEY (person_id, workspace_id)
);
CREATE INDEX memberships_workspace ON memberships (workspace_id);
`,
  },
  {
    version: 5,
    name: 'oauth state in the Gatehouse stores',
    // the authorization server's records and keys move to the tables of @gatehousejs/stores
    // (migrated first), kept as they are: signed-in clients and issued tokens stay valid
    sql: `
INSERT INTO gatehouse_oauth_records (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
  SELECT model, id, payload, grant_id, uid, user_code, expires_at, consumed_at FROM oauth_payloads ON CONFLICT DO NOTHING;
INSERT INTO gatehouse_oauth_keys (name, value, created_at) SELECT name, value, created_at FROM oauth_keys ON CONFLICT DO NOTHING;
DROP TABLE oauth_payloads;
DROP TABLE oauth_keys;
`,
  },
  {
    version: 6,
    name: 'bookings listed by start and id',
    // the index gives a listing's whole order (start, then id for ties), so the planner walks it
    // and stops at the limit even before the table has statistics; without id it may sort the
    // workspace instead, a cost that grows with every booking
    sql: `
CREATE INDEX IF NOT EXISTS bookings_workspace_start_id ON bookings (workspace_id, starts_at, id);
DROP INDEX IF EXISTS bookings_workspace_start;
`,
  },
];

/** The advisory lock every process migrating this database takes: one migrates, the others wait and find it done. */
const MIGRATION_LOCK = 0x6b00_0001;

/**
 * Creates or upgrades the product's tables in one transaction under a
 * transaction-level advisory lock, recording each step in
 * `booking_migrations`; idempotent, safe when several processes start at
 * once. Refuses a database from a newer version. Returns the versions applied.
 */
export async function migrateProductSchemaPostgres(pool: pg.Pool, now: number): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS booking_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
    const { rows } = await client.query<{ v: number | null }>(
      'SELECT max(version) AS v FROM booking_migrations',
    );
    const from = rows[0]?.v ?? 0;
    if (from > PRODUCT_SCHEMA_VERSION) {
      throw new Error(
        `The database has booking schema ${from}; this build knows up to ${PRODUCT_SCHEMA_VERSION}.`,
      );
    }
    const applied: number[] = [];
    for (const migration of MIGRATIONS.filter((m) => m.version > from)) {
      await client.query(migration.sql);
      await client.query('INSERT INTO booking_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        now,
      ]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
