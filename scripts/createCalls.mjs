// The calls of the create check (createCheck.mjs): every tool of a started project, through
// the project's own installed @gatehousejs/testing, each judged by what it did to the database
// (or, in memory, by the server's answers and its mail log line).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';

/** What the check reads behind the server's back: tickets and mails as stored. */
export function inspector(app, variant, env) {
  if (variant.store === 'sqlite') {
    const read = (sql, ...args) => {
      const db = new Database(join(app, 'tickets.db'), { readonly: true, fileMustExist: true });
      try {
        return db.prepare(sql).all(...args);
      } finally {
        db.close();
      }
    };
    return {
      where: 'the tickets table of tickets.db',
      titled: async (title) => read('SELECT id FROM tickets WHERE title = ?', title).length,
      has: async (id) => read('SELECT id FROM tickets WHERE id = ?', id).length === 1,
      statusOf: async (id) => read('SELECT status FROM tickets WHERE id = ?', id)[0]?.status,
      mails: async () => read('SELECT id FROM mails').length,
    };
  }
  if (variant.store === 'postgres') {
    const read = async (sql, args = []) => {
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      await client.connect();
      try {
        return (await client.query(sql, args)).rows;
      } finally {
        await client.end();
      }
    };
    return {
      where: 'the tickets table in PostgreSQL',
      titled: async (title) => (await read('SELECT id FROM tickets WHERE title = $1', [title])).length,
      has: async (id) => (await read('SELECT id FROM tickets WHERE id = $1', [id])).length === 1,
      statusOf: async (id) => (await read('SELECT status FROM tickets WHERE id = $1', [id]))[0]?.status,
      mails: async () => (await read('SELECT id FROM mails')).length,
    };
  }
  return undefined; // memory: only the server sees its data; the calls and its log show it
}

/** The installed kit of the project: its RawHttpClient and FormBrowser. */
export const kitOf = (app) =>
  import(pathToFileURL(join(app, 'node_modules/@gatehousejs/testing/dist/index.js')).href);

/** A raw 2026-07-28 client of the installed kit, on `url`, sending `token`. */
export const clientOf = (kit, url) => (token) =>
  new kit.RawHttpClient({ url, era: '2026-07-28', headers: { authorization: `Bearer ${token}` } });

/** Calls every tool of a started project and checks what each one did. */
export async function exercise(app, variant, served, inspect, report) {
  const kit = await kitOf(app);
  const as = clientOf(kit, served.url);
  const client = as(served.token);
  const call = async (name, args, id) =>
    (await client.callTool(name, args, id === undefined ? {} : { id })).result?.structuredContent ?? {};
  const tag = `[${variant.store}]`;
  const mailsSent = async () =>
    inspect ? inspect.mails() : (served.output.stderr.match(/"event":"mail\.sent"/g) ?? []).length;

  const listed = ((await call('find_tickets', {})).result?.tickets ?? []).map((t) => t.id);
  report(
    listed.includes('tk_acme_boiler') && !listed.some((id) => id.startsWith('tk_globex')),
    `${tag} find_tickets lists the token's workspace only`,
    listed.join(', '),
  );

  const title = `Door sticks ${randomBytes(3).toString('hex')}`;
  const args = { title, body: 'The back door.', requester_email: 'sam@example.com' };
  const first = await call('create_ticket', args, 1);
  const again = await call('create_ticket', args, 2);
  const stored = inspect
    ? await inspect.titled(title)
    : ((await call('find_tickets', { query: title })).result?.tickets ?? []).length;
  report(
    first.status === 'ok' && again.replayed === true && stored === 1,
    `${tag} create_ticket sent twice with new JSON-RPC ids: one ticket stored, the second answer a replay`,
    `${stored} row(s) in ${inspect?.where ?? 'find_tickets'}`,
  );

  await updateWithVersion(call, tag, first.result?.id, inspect, report);

  const mailsBefore = await mailsSent();
  const preview = await call('email_requester', { ticket_id: 'tk_acme_boiler', message: 'Monday at 9.' });
  const afterPreview = await mailsSent();
  const confirmation = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
  const confirmed = await call('confirm_action', confirmation);
  await new Promise((ok) => setTimeout(ok, 200)); // the log line reaches the pipe
  const afterConfirm = await mailsSent();
  report(
    preview.status === 'PREVIEW' &&
      afterPreview === mailsBefore &&
      confirmed.status === 'ok' &&
      afterConfirm === mailsBefore + 1,
    `${tag} email_requester sends nothing until confirm_action, then one mail`,
    `mails: ${mailsBefore} before, ${afterPreview} after the preview, ${afterConfirm} after confirm_action`,
  );

  const stranger = await as('ghmcp_not-a-token').callTool('find_tickets', {});
  report(stranger.status === 401, `${tag} an unknown token answers 401`, `HTTP ${stranger.status}`);
  const widened = await call('find_tickets', { workspace_id: 'ws_globex' });
  report(
    widened.error?.code === 'unknown_arguments',
    `${tag} a workspace_id argument is refused`,
    widened.error?.code,
  );

  if (variant.console) await approveOnConsole(kit, tag, served, call, inspect, report);
  const changes = ((await call('list_recent_changes', {})).result?.changes ?? []).map((c) => c.tool);
  const writes = [
    'create_ticket',
    'update_ticket',
    'email_requester',
    ...(variant.console ? ['delete_ticket'] : []),
  ];
  report(
    writes.every((tool) => changes.includes(tool)) && !changes.includes('find_tickets'),
    `${tag} list_recent_changes shows this token's writes, the confirmed mail and the approved delete among them`,
    changes.join(', '),
  );
  return title;
}

/** get_ticket reads the version; update_ticket with it changes the row, with it again (stale) answers conflict. */
async function updateWithVersion(call, tag, id, inspect, report) {
  const read = await call('get_ticket', { id });
  const version = read.result?.version;
  const updated = await call('update_ticket', { id, version, status: 'closed' });
  const stale = await call('update_ticket', { id, version, status: 'waiting' });
  const status = inspect ? await inspect.statusOf(id) : (await call('get_ticket', { id })).result?.status;
  report(
    typeof version === 'string' &&
      updated.status === 'ok' &&
      updated.result?.version !== version &&
      stale.error?.code === 'conflict' &&
      status === 'closed',
    `${tag} get_ticket gives the version; update_ticket with it changes the ticket, with it again answers conflict`,
    `stored status ${status}, stale update ${stale.error?.code}`,
  );
}

/** delete_ticket: no model call deletes; a person signs in with the printed link and approves on the page. */
async function approveOnConsole(kit, tag, served, call, inspect, report) {
  const preview = await call('delete_ticket', { ticket_id: 'tk_acme_invoice' });
  const confirmation = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
  const pending = await call('confirm_action', confirmation);
  const kept = await inspect.has('tk_acme_invoice');
  report(
    preview.approval === 'person' && pending.error?.code === 'approval_pending' && kept,
    `${tag} delete_ticket and confirm_action delete nothing before a person approves`,
    `${pending.error?.code}; ticket still in ${inspect.where}: ${kept}`,
  );
  const origin = new URL(served.url).origin;
  const browser = new kit.FormBrowser(origin);
  const signedIn = await browser.get(new URL(served.signInLink).pathname);
  const approvalPath = new URL(preview.approval_url).pathname;
  const page = await browser.get(approvalPath);
  const fields = kit.hiddenFieldsIn(page.text);
  const approved = await browser.post(`${approvalPath}/approve`, { content_hash: fields.content_hash ?? '' });
  const gone = !(await inspect.has('tk_acme_invoice'));
  const replay = await call('confirm_action', confirmation);
  report(
    signedIn.status === 303 &&
      page.status === 200 &&
      approved.status < 400 &&
      gone &&
      replay.replayed === true,
    `${tag} a person signs in with the printed link and approves on the console: the ticket is deleted once`,
    `sign-in ${signedIn.status}, page ${page.status}, approve ${approved.status}, deleted: ${gone}, model learns it as a replay: ${replay.replayed === true}`,
  );
}
