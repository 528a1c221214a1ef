/** One PostgreSQL schema step. Versions are dense and never edited once released; add a new one instead. */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const PENDING_STATUSES = "'pending', 'approved', 'claimed', 'executed', 'rejected', 'superseded', 'failed'";

/**
 * Every PostgreSQL migration, oldest first. Keys that core builds with NUL
 * separators (replay, rate buckets, switches) are BYTEA (their UTF-8 bytes);
 * times are epoch milliseconds.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'guard stores',
    sql: `
CREATE TABLE gatehouse_replay (
  key BYTEA PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('running', 'completed')),
  arguments_digest TEXT NOT NULL,
  result TEXT,
  fence TEXT,
  expires_at BIGINT NOT NULL,
  CHECK ((state = 'completed') = (result IS NOT NULL))
);
CREATE INDEX gatehouse_replay_expires_at ON gatehouse_replay (expires_at);

CREATE TABLE gatehouse_pending_actions (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  connection_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  arguments TEXT NOT NULL,
  arguments_digest TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  summary TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  status TEXT NOT NULL CHECK (status IN (${PENDING_STATUSES}))
);
CREATE INDEX gatehouse_pending_actions_expires_at ON gatehouse_pending_actions (expires_at);

CREATE TABLE gatehouse_audit (
  id TEXT COLLATE "C" PRIMARY KEY,
  at BIGINT NOT NULL,
  channel TEXT NOT NULL,
  tenant_id TEXT,
  connection_id TEXT,
  client_name TEXT,
  actor_id TEXT,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'refused', 'failed', 'violation')),
  object_ids TEXT[] NOT NULL,
  note TEXT
);
CREATE INDEX gatehouse_audit_tenant ON gatehouse_audit (tenant_id, id);
CREATE INDEX gatehouse_audit_connection ON gatehouse_audit (connection_id, id);

CREATE TABLE gatehouse_switches (
  key BYTEA PRIMARY KEY,
  is_on BOOLEAN NOT NULL,
  previous BOOLEAN
);

CREATE TABLE gatehouse_rate_buckets (
  key BYTEA PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  at DOUBLE PRECISION NOT NULL,
  expires_at DOUBLE PRECISION NOT NULL,
  granted BOOLEAN NOT NULL
);
CREATE INDEX gatehouse_rate_buckets_expires_at ON gatehouse_rate_buckets (expires_at);

CREATE TABLE gatehouse_credentials (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  tenant_ids TEXT[] NOT NULL,
  creator_id TEXT NOT NULL,
  rights TEXT[] NOT NULL,
  client_label TEXT NOT NULL,
  toolset TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  revoked_at BIGINT
);
`,
  },
  {
    version: 2,
    name: 'approval by a person',
    sql: `
ALTER TABLE gatehouse_pending_actions
  ADD COLUMN approval TEXT NOT NULL DEFAULT 'model' CHECK (approval IN ('model', 'person')),
  ADD COLUMN creator_id TEXT,
  ADD COLUMN result TEXT,
  ADD COLUMN decided_by TEXT,
  ADD COLUMN decided_at BIGINT;
CREATE INDEX gatehouse_pending_actions_awaiting ON gatehouse_pending_actions (tenant_id, approval, status, created_at);
`,
  },
  {
    version: 3,
    name: 'pending action claim leases',
    sql: `
ALTER TABLE gatehouse_pending_actions
  ADD COLUMN claim_fence TEXT,
  ADD COLUMN claim_expires_at BIGINT;
`,
  },
  {
    version: 4,
    name: 'oauth authorization server',
    sql: `
CREATE TABLE gatehouse_oauth_records (
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
CREATE INDEX gatehouse_oauth_records_grant ON gatehouse_oauth_records (grant_id);
CREATE INDEX gatehouse_oauth_records_uid ON gatehouse_oauth_records (uid);
CREATE INDEX gatehouse_oauth_records_user_code ON gatehouse_oauth_records (user_code);
CREATE INDEX gatehouse_oauth_records_expires_at ON gatehouse_oauth_records (expires_at);
CREATE TABLE gatehouse_oauth_keys (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
`,
  },
  {
    version: 5,
    name: 'rate takes in batches',
    sql: `
ALTER TABLE gatehouse_rate_buckets ADD COLUMN taken INTEGER NOT NULL DEFAULT 0;
`,
  },
];
