import type { AuditRow } from '@gatehousejs/core';
import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { BookingApp } from '../app.js';
import { type AuditFilter, readAudit } from './auditReader.js';
import { type PageContext, type PageEnv, signedIn } from './context.js';
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
  channel: string;
  person: string;
  tool: string;
  from: string;
  to: string;
}

function filterForm(q: AuditQueryText): Html {
  return html`<form data-form="audit-filter" method="get" action="/audit" class="filters">
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
  const text = (name: string) => (c.req.query(name) ?? '').trim().slice(0, 200);
  const q: AuditQueryText = {
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
    tenantId: who.person.workspaceId,
    channel: q.channel || undefined,
    actorId: q.person || undefined,
    action: q.tool || undefined,
    from: from as number | undefined,
    to: to as number | undefined,
    before: text('before') || undefined,
    limit: AUDIT_PAGE_SIZE,
  };
  const rows = await readAudit(app, filter);
  const body = html`${filterForm(q)}
${rows.length === 0 ? html`<p class="empty">No audit rows match.</p>` : ''}
<table class="list audit">
<thead><tr><th>When</th><th>Channel</th><th>Person</th><th>Action</th><th>Outcome</th><th>Connection</th><th>Objects</th><th>Note</th></tr></thead>
<tbody>${rows.map(auditRowHtml)}</tbody>
</table>
${nextLink(q, rows)}`;
  return render(200, { title: 'Audit', who, body });
}

/** The workspace's audit rows, newest first, 100 a page, filtered (owners only). */
export function auditRoutes(pages: Hono<PageEnv>, app: BookingApp): void {
  pages.get('/audit', async (c) => {
    if (signedIn(c).person.role !== 'owner') {
      return errorPage(c, 403, 'Owners only', 'Only a workspace owner may read the audit log.');
    }
    return auditPage(app, c);
  });
}
