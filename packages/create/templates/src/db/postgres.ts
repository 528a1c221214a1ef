import { createPostgresPool, createPostgresStores } from '@gatehousejs/stores/postgres';
import type { Pool, PoolClient } from 'pg';
import type { Ticket } from '../tickets/model.js';
import {
  type Database,
  type MailRow,
  mailOf,
  SEED_TICKETS,
  type TicketRepository,
  type TicketRow,
  ticketOf,
} from './database.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tickets (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  requester_email TEXT NOT NULL,
  portal_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'waiting', 'closed')),
  created_by TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS tickets_workspace_title ON tickets (workspace_id, title);
CREATE TABLE IF NOT EXISTS mails (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  to_address TEXT NOT NULL,
  subject TEXT NOT NULL,
  text TEXT NOT NULL,
  sent_at BIGINT NOT NULL
);`;

/** A pool or the unit of work's client: both run `query`. */
type Queryable = Pick<Pool | PoolClient, 'query'>;

async function insertTicket(db: Queryable, t: Ticket): Promise<void> {
  await db.query(
    `INSERT INTO tickets (id, workspace_id, title, body, requester_email, portal_key, status, created_by, revision)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
    [t.id, t.workspaceId, t.title, t.body, t.requesterEmail, t.portalKey, t.status, t.createdBy, t.revision],
  );
}

/**
 * The tickets of one workspace, on the pool or, inside an MCP write, on the
 * unit of work's client between BEGIN and COMMIT: the ticket, its audit row
 * and its replay record commit together.
 */
function repository(db: Queryable, workspaceId: string): TicketRepository {
  const one = async (sql: string, values: unknown[]) => {
    const { rows } = await db.query<TicketRow>(sql, [workspaceId, ...values]);
    return rows[0] ? ticketOf(rows[0]) : undefined;
  };
  return {
    async find(needle, limit) {
      const { rows } = await db.query<TicketRow>(
        'SELECT * FROM tickets WHERE workspace_id = $1 AND strpos(lower(title), lower($2)) > 0 ORDER BY title, id LIMIT $3',
        [workspaceId, needle ?? '', limit],
      );
      return rows.map(ticketOf);
    },
    get: (id) => one('SELECT * FROM tickets WHERE workspace_id = $1 AND id = $2', [id]),
    byTitle: (title) =>
      one('SELECT * FROM tickets WHERE workspace_id = $1 AND title = $2 ORDER BY id LIMIT 1', [title]),
    insert: (ticket) => insertTicket(db, ticket),
    update: (id, changes) =>
      one(
        'UPDATE tickets SET title = $3, status = $4, revision = revision + 1 WHERE workspace_id = $1 AND id = $2 RETURNING *',
        [id, changes.title, changes.status],
      ),
    async remove(id) {
      const { rowCount } = await db.query('DELETE FROM tickets WHERE workspace_id = $1 AND id = $2', [
        workspaceId,
        id,
      ]);
      return rowCount === 1;
    },
  };
}

/**
 * Opens a pool on `DATABASE_URL`, creates the product's tables and
 * Gatehouse's (migrated once, whatever other replicas do) and seeds an
 * empty database. Several replicas may share it.
 */
export async function openDatabase(url = process.env.DATABASE_URL): Promise<Database<PoolClient>> {
  if (!url)
    throw new Error(
      'Set DATABASE_URL to the PostgreSQL database to use, e.g. postgres://user@127.0.0.1:5432/tickets',
    );
  const pool = createPostgresPool({ connectionString: url, max: 10 });
  try {
    await pool.query(SCHEMA);
    const stores = await createPostgresStores(pool);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tickets');
    if (rows[0]?.n === 0) for (const ticket of SEED_TICKETS) await insertTicket(pool, ticket);
    return {
      engine: 'postgres',
      location: locationOf(url),
      stores,
      unitOfWork: stores.unitOfWork,
      tickets: (workspaceId, unit) => repository(unit ?? pool, workspaceId),
      outbox: {
        async append(mail) {
          await pool.query(
            'INSERT INTO mails (id, workspace_id, ticket_id, to_address, subject, text, sent_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            [mail.id, mail.workspaceId, mail.ticketId, mail.to, mail.subject, mail.text, mail.sentAt],
          );
        },
      },
      all: {
        tickets: async () =>
          (await pool.query<TicketRow>('SELECT * FROM tickets ORDER BY id')).rows.map(ticketOf),
        mails: async () =>
          (await pool.query<MailRow>('SELECT * FROM mails ORDER BY sent_at, id')).rows.map(mailOf),
        async patch(id, fields) {
          await pool.query(
            `UPDATE tickets SET title = coalesce($2, title), body = coalesce($3, body),
             portal_key = coalesce($4, portal_key), revision = revision + 1 WHERE id = $1`,
            [id, fields.title ?? null, fields.body ?? null, fields.portalKey ?? null],
          );
        },
      },
      housekeeping: async (now) => {
        await stores.purgeExpired(now);
      },
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** Host, port and database of a URL: never its user or password. */
function locationOf(url: string): string {
  const parsed = new URL(url);
  return `PostgreSQL at ${parsed.host}${parsed.pathname}`;
}

/**
 * A fresh schema in the database at `DATABASE_URL` for one test (tests run
 * side by side in one database); closing it drops the schema.
 */
export async function openScratchDatabase(url = process.env.DATABASE_URL): Promise<Database<PoolClient>> {
  if (!url) throw new Error('Set DATABASE_URL to a PostgreSQL database the tests may create schemas in.');
  const schema = `test_${crypto.randomUUID().replaceAll('-', '')}`;
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  const admin = createPostgresPool({ connectionString: url, max: 1 });
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
    const database = await openDatabase(scoped.href);
    return {
      ...database,
      async close() {
        await database.close();
        await admin.query(`DROP SCHEMA ${schema} CASCADE`).finally(() => admin.end());
      },
    };
  } catch (error) {
    await admin.end();
    throw error;
  }
}
