import type { AuditRow } from '@gatehousejs/core';
import type { Hono } from 'hono';
import type { BookingApp } from '../app.js';
import type { Membership } from '../services/people.js';
import { type AuditFilter, readAudit } from './auditReader.js';
import { chosenWorkspace, ownedWorkspaces, type PageContext, type PageEnv, signedIn } from './context.js';
import { html } from './html.js';
import { errorPage, type Html, render, utc } from './layout.js';

/** Rows per page of the audit page. */
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

function auditRowHtml(row: AuditRow): Html {
  return html`<tr data-audit-row data-audit-id="${row.id}">
  <td>${utc(row.at)}</td>
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
function workspaceField(owned: readonly Membership[], chosen: string): Html {
  if (owned.length < 2) return html`<input type="hidden" name="workspace" value="${chosen}">`;
  const options = owned.map(
    (m) =>
      html`<option value="${m.workspaceId}" ${m.workspaceId === chosen ? 'selected' : ''}>${m.name}</option>`,
  );
  return html`<label>Workspace <select name="workspace" data-audit-workspace>${options}</select></label>`;
}

function filterForm(q: AuditQueryText, owned: readonly Membership[]): Html {
  return html`<form data-form="audit-filter" method="get" action="/audit" class="filters">
  ${workspaceField(owned, q.workspace)}
  <label>Channel <input type="text" name="channel" value="${q.channel}"></label>
  <label>Person id <input type="text" name="person" value="${q.person}"></label>
  <label>Action or tool <input type="text" name="tool" value="${q.tool}"></label>
  <label>From <input type="text" name="from" value="${q.from}" placeholder="2026-12-01"></label>
  <label>To <input type="text" name="to" value="${q.to}" placeholder="2026-12-31"></label>
  <button type="submit">Filter</button>
</form>`;
}

function nextLink(q: AuditQueryText, rows: readonly AuditRow[]): Html {
  const last = rows[rows.length - 1];
  if (rows.length < AUDIT_PAGE_SIZE || !last) return html``;
  const params = new URLSearchParams({ ...q, before: last.id });
  return html`<p><a data-next-page href="/audit?${params.toString()}">Older rows</a></p>`;
}

async function auditPage(app: BookingApp, c: PageContext): Promise<Response> {
  const who = signedIn(c);
  const owned = await ownedWorkspaces(app, who);
  if (owned.length === 0) {
    return errorPage(c, 403, 'Owners only', 'Only a workspace owner may read the audit log.');
  }
  const text = (name: string) => (c.req.query(name) ?? '').trim().slice(0, 200);
  // by default their own workspace when they own it (listed first); one they do not own is the same 404 as none
  const workspace = chosenWorkspace(owned, text('workspace') || undefined);
  if (!workspace) return errorPage(c, 404, 'Not found', 'You own no workspace with this id.');
  const q: AuditQueryText = {
    workspace: workspace.workspaceId,
    channel: text('channel'),
    person: text('person'),
    tool: text('tool'),
    from: text('from'),
    to: text('to'),
  };
  const from = timeBound('from', q.from);
  const to = timeBound('to', q.to);
  const bad = [from, to].find((bound): bound is Error => bound instanceof Error);
  if (bad) return errorPage(c, 400, 'Audit', bad.message);
  const filter: AuditFilter = {
    tenantId: workspace.workspaceId,
    channel: q.channel || undefined,
    actorId: q.person || undefined,
    action: q.tool || undefined,
    from: from as number | undefined,
    to: to as number | undefined,
    before: text('before') || undefined,
    limit: AUDIT_PAGE_SIZE,
  };
  const rows = await readAudit(app, filter);
  const body = html`${owned.length > 1 ? html`<h2 data-audit-of="${workspace.workspaceId}">${workspace.name}</h2>` : ''}
${filterForm(q, owned)}
${rows.length === 0 ? html`<p class="empty">No audit rows match.</p>` : ''}
<table class="list audit">
<thead><tr><th>When</th><th>Channel</th><th>Person</th><th>Action</th><th>Outcome</th><th>Connection</th><th>Objects</th><th>Note</th></tr></thead>
<tbody>${rows.map(auditRowHtml)}</tbody>
</table>
${nextLink(q, rows)}`;
  return render(200, { title: 'Audit', who, body });
}

/**
 * A workspace's audit rows, newest first, 100 a page, filtered: for owners,
 * of any workspace they own now (`?workspace=`, their own by default).
 */
export function auditRoutes(pages: Hono<PageEnv>, app: BookingApp): void {
  pages.get('/audit', (c) => auditPage(app, c));
}
