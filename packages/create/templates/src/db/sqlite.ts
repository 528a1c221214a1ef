import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  createSqliteStores,
  type DatabaseOptions,
  openDatabase as openSqlite,
  type SqliteDatabase,
} from '@gatehousejs/stores';
import type { Ticket, TicketStatus } from '../tickets/model.js';
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
  sent_at INTEGER NOT NULL
);`;

const rowOf = (t: Ticket): TicketRow => ({
  id: t.id,
  workspace_id: t.workspaceId,
  title: t.title,
  body: t.body,
  requester_email: t.requesterEmail,
  portal_key: t.portalKey,
  status: t.status,
  created_by: t.createdBy,
  revision: t.revision,
});

/** Every statement, prepared once when the database opens. */
function statements(db: SqliteDatabase) {
  const where = 'WHERE workspace_id = @workspaceId';
  return {
    find: db.prepare<{ workspaceId: string; needle: string; limit: number }, TicketRow>(
      `SELECT * FROM tickets ${where} AND instr(lower(title), lower(@needle)) > 0 ORDER BY title, id LIMIT @limit`,
    ),
    get: db.prepare<{ workspaceId: string; id: string }, TicketRow>(
      `SELECT * FROM tickets ${where} AND id = @id`,
    ),
    byTitle: db.prepare<{ workspaceId: string; title: string }, TicketRow>(
      `SELECT * FROM tickets ${where} AND title = @title ORDER BY id LIMIT 1`,
    ),
    insert: db.prepare<TicketRow>(
      `INSERT INTO tickets (id, workspace_id, title, body, requester_email, portal_key, status, created_by, revision)
       VALUES (@id, @workspace_id, @title, @body, @requester_email, @portal_key, @status, @created_by, @revision)
       ON CONFLICT (id) DO NOTHING`,
    ),
    update: db.prepare<{ workspaceId: string; id: string; title: string; status: TicketStatus }, TicketRow>(
      `UPDATE tickets SET title = @title, status = @status, revision = revision + 1 ${where} AND id = @id RETURNING *`,
    ),
    remove: db.prepare<{ workspaceId: string; id: string }>(`DELETE FROM tickets ${where} AND id = @id`),
    appendMail: db.prepare<MailRow>(
      `INSERT INTO mails (id, workspace_id, ticket_id, to_address, subject, text, sent_at)
       VALUES (@id, @workspace_id, @ticket_id, @to_address, @subject, @text, @sent_at)`,
    ),
    byId: db.prepare<{ id: string }, TicketRow>('SELECT * FROM tickets WHERE id = @id'),
    allTickets: db.prepare<[], TicketRow>('SELECT * FROM tickets ORDER BY id'),
    allMails: db.prepare<[], MailRow>('SELECT * FROM mails ORDER BY sent_at, id'),
    patch: db.prepare<{ id: string; title: string; body: string; portalKey: string }>(
      'UPDATE tickets SET title = @title, body = @body, portal_key = @portalKey, revision = revision + 1 WHERE id = @id',
    ),
    count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM tickets'),
  };
}

type Statements = ReturnType<typeof statements>;

/**
 * The tickets of one workspace. better-sqlite3 is synchronous and has one
 * handle: inside an MCP write, its statements join the unit of work's open
 * transaction, so the ticket, its audit row and its replay record commit together.
 */
function repository(s: Statements, workspaceId: string): TicketRepository {
  const found = (row: TicketRow | undefined) => (row ? ticketOf(row) : undefined);
  return {
    find: async (needle, limit) => s.find.all({ workspaceId, needle: needle ?? '', limit }).map(ticketOf),
    get: async (id) => found(s.get.get({ workspaceId, id })),
    byTitle: async (title) => found(s.byTitle.get({ workspaceId, title })),
    async insert(ticket) {
      s.insert.run(rowOf(ticket));
    },
    update: async (id, changes) => found(s.update.get({ workspaceId, id, ...changes })),
    remove: async (id) => s.remove.run({ workspaceId, id }).changes === 1,
  };
}

/** Opens (and creates) the product's SQLite file with Gatehouse's tables in it; seeds an empty one. */
export async function openDatabase(
  file = process.env.DATABASE_FILE ?? 'tickets.db',
  options: DatabaseOptions = {},
): Promise<Database<SqliteDatabase>> {
  const db = openSqlite(file, { busyTimeoutMs: 5_000, ...options });
  db.exec(SCHEMA);
  const stores = createSqliteStores(db); // migrates Gatehouse's tables (idempotent)
  const s = statements(db);
  // Writes outside an MCP call take the stores' lock, so none lands inside an open unit of work.
  const write = <T>(work: () => T) => stores.lock.run(() => db.transaction(work).immediate());
  await write(() => {
    if (s.count.get()?.n === 0) for (const ticket of SEED_TICKETS) s.insert.run(rowOf(ticket));
  });
  return {
    engine: 'sqlite',
    location: resolve(file),
    stores,
    unitOfWork: stores.unitOfWork,
    tickets: (workspaceId) => repository(s, workspaceId),
    outbox: {
      async append(mail) {
        s.appendMail.run({
          id: mail.id,
          workspace_id: mail.workspaceId,
          ticket_id: mail.ticketId,
          to_address: mail.to,
          subject: mail.subject,
          text: mail.text,
          sent_at: mail.sentAt,
        });
      },
    },
    all: {
      tickets: async () => s.allTickets.all().map(ticketOf),
      mails: async () => s.allMails.all().map(mailOf),
      async patch(id, fields) {
        await write(() => {
          const row = s.byId.get({ id });
          if (!row) return;
          const { title = row.title, body = row.body, portalKey = row.portal_key } = fields;
          s.patch.run({ id, title, body, portalKey });
        });
      },
    },
    housekeeping: async (now) => {
      await stores.housekeeping(now);
    },
    async close() {
      stores.close();
      db.close();
    },
  };
}

/** A fresh database in a temporary folder for one test; closing it removes the folder. */
export async function openScratchDatabase(): Promise<Database<SqliteDatabase>> {
  const folder = mkdtempSync(join(tmpdir(), 'tickets-test-'));
  const database = await openDatabase(join(folder, 'tickets.db'), { synchronous: 'normal' });
  return {
    ...database,
    async close() {
      await database.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
