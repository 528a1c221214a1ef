import type { AuditQuery, AuditRow } from '@gatehousejs/core';
import type { Hono } from 'hono';
import type { ConsoleContext, ConsoleEnv } from '../internal/context.js';
import { signedIn } from '../internal/context.js';
import { html } from '../internal/html.js';
import type { Kit } from '../internal/kit.js';
import type { ConsoleWorkspace, Html } from '../options.js';
import { chosenWorkspace, ownedBy } from './switches.js';

/** Rows per page of the audit log. */
export const AUDIT_PAGE_SIZE = 100;
const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A time bound from the query: an ISO date (`2026-12-01`, UTC midnight; as
 * `to`, the end of that day) or an ISO date-time with offset. Undefined when
 * empty; an Error naming the field when unparsable.
 */
export function timeBound(name: 'from' | 'to', value: string | undefined): number | undefined | Error {
  if (!value) return undefined;
  const ms = Date.parse(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    return new Error(
      `"${name}" must be an ISO date (2026-12-01) or date-time with offset (2026-12-01T09:00:00Z).`,
    );
  }
  return name === 'to' && DATE_ONLY.test(value) ? ms + DAY_MS : ms;
}

async function auditRowHtml(kit: Kit, row: AuditRow, workspaceId: string): Promise<Html> {
  return html`<tr data-audit-row data-audit-id="${row.id}">
  <td>${await kit.time(row.at, workspaceId)}</td>
  <td data-channel>${row.channel}</td>
  <td data-actor>${row.actorId ?? ''}</td>
  <td data-action>${row.action}</td>
  <td>${row.outcome}</td>
  <td>${row.connectionId ?? ''}${row.clientName ? html` (${row.clientName})` : ''}</td>
  <td>${row.objectIds.join(', ')}</td>
  <td>${row.note ?? ''}</td>
</tr>`;
}

interface AuditQueryText {
  workspace: string;
  channel: string;
  person: string;
  tool: string;
  from: string;
  to: string;
}

/** A picker of the owned workspaces, when there is more than one. */
function workspaceField(owned: readonly ConsoleWorkspace[], chosen: string): Html {
  if (owned.length < 2) return html`<input type="hidden" name="workspace" value="${chosen}">`;
  const options = owned.map(
    (w) => html`<option value="${w.id}" ${w.id === chosen ? 'selected' : ''}>${w.name}</option>`,
  );
  return html`<label>Workspace <select name="workspace" data-audit-workspace>${options}</select></label>`;
}

function filterForm(kit: Kit, q: AuditQueryText, owned: readonly ConsoleWorkspace[]): Html {
  return html`<form data-form="audit-filter" method="get" action="${kit.runtime.path('/audit')}" class="filters">
  ${workspaceField(owned, q.workspace)}
  <label>Channel <input type="text" name="channel" value="${q.channel}"></label>
  <label>Person id <input type="text" name="person" value="${q.person}"></label>
  <label>Action or tool <input type="text" name="tool" value="${q.tool}"></label>
  <label>From <input type="text" name="from" value="${q.from}" placeholder="2026-12-01"></label>
  <label>To <input type="text" name="to" value="${q.to}" placeholder="2026-12-31"></label>
  <button type="submit">Filter</button>
</form>`;
}

function nextLink(kit: Kit, q: AuditQueryText, rows: readonly AuditRow[]): Html {
  const last = rows[rows.length - 1];
  if (rows.length < AUDIT_PAGE_SIZE || !last) return html``;
  const params = new URLSearchParams({ ...q, before: last.id });
  return html`<p><a data-next-page href="${kit.runtime.path('/audit')}?${params.toString()}">Older rows</a></p>`;
}

async function auditPage(kit: Kit, c: ConsoleContext): Promise<Response> {
  const who = signedIn(c);
  const owned = ownedBy(who);
  if (owned.length === 0)
    return kit.error(c, 403, 'Owners only', 'Only a workspace owner may read the audit log.');
  const text = (name: string) => (c.req.query(name) ?? '').trim().slice(0, 200);
  // by default their home workspace when they own it (listed first); one they do not own is the same 404 as none
  const workspace = chosenWorkspace(owned, text('workspace') || undefined);
  if (!workspace) return kit.error(c, 404, 'Not found', 'You own no workspace with this id.');
  const q: AuditQueryText = {
    workspace: workspace.id,
    channel: text('channel'),
    person: text('person'),
    tool: text('tool'),
    from: text('from'),
    to: text('to'),
  };
  const from = timeBound('from', q.from);
  const to = timeBound('to', q.to);
  const bad = [from, to].find((bound): bound is Error => bound instanceof Error);
  if (bad) return kit.error(c, 400, 'Audit log', bad.message);
  const query: AuditQuery = {
    tenantId: workspace.id,
    ...(q.channel && { channel: q.channel }),
    ...(q.person && { actorId: q.person }),
    ...(q.tool && { action: q.tool }),
    ...(from !== undefined && { from: from as number }),
    ...(to !== undefined && { to: to as number }),
    ...(text('before') && { before: text('before') }),
    limit: AUDIT_PAGE_SIZE,
  };
  const rows = await kit.runtime.options.audit.list(query);
  const rendered = await Promise.all(rows.map((row) => auditRowHtml(kit, row, workspace.id)));
  const body = html`${owned.length > 1 ? html`<h2 data-audit-of="${workspace.id}">${workspace.name}</h2>` : ''}
${filterForm(kit, q, owned)}
${rows.length === 0 ? html`<p class="empty">No audit rows match.</p>` : ''}
<table class="list audit">
<thead><tr><th scope="col">When</th><th scope="col">Channel</th><th scope="col">Person</th><th scope="col">Action</th><th scope="col">Outcome</th><th scope="col">Connection</th><th scope="col">Objects</th><th scope="col">Note</th></tr></thead>
<tbody>${rendered}</tbody>
</table>
${nextLink(kit, q, rows)}`;
  return kit.render(c, 200, { title: 'Audit log', body });
}

/** A workspace's audit rows (I15), newest first, 100 a page, filtered: for owners, of any workspace they own now. */
export function auditRoutes(app: Hono<ConsoleEnv>, kit: Kit): void {
  app.get('/audit', (c) => auditPage(kit, c));
}
