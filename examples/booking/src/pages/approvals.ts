import type { ApprovalDecision, Approvals, ApprovalView, Approver, JsonObject } from '@gatehousejs/core';
import type { Hono } from 'hono';
import type { BookingApp } from '../app.js';
import type { Right } from '../domain/model.js';
import { approverOf, formOf, type PageEnv, type SignedIn, signedIn } from './context.js';
import { html } from './html.js';
import { csrfField, errorPage, type Html, render, seeOther, utc } from './layout.js';
import { flashCookie, takeFlash } from './session.js';

/** Core's approvals of the app's MCP server, when approval by a person is configured. */
export function approvalsOf(app: BookingApp): Approvals<Right> | undefined {
  return app.mcp.approvals;
}

/** A JSON value as nested definition lists: every key and value is text, escaped. */
function jsonHtml(value: unknown): Html {
  if (value === null || typeof value !== 'object')
    return html`<span class="value">${JSON.stringify(value)}</span>`;
  if (Array.isArray(value)) return html`<ol>${value.map((item) => html`<li>${jsonHtml(item)}</li>`)}</ol>`;
  const entries = Object.entries(value as JsonObject);
  return html`<dl>${entries.map(([key, item]) => html`<dt>${key}</dt><dd>${jsonHtml(item)}</dd>`)}</dl>`;
}

function row(view: ApprovalView): Html {
  return html`<tr>
  <td><a data-approval-id="${view.id}" href="/approvals/${encodeURIComponent(view.id)}">${view.title}</a></td>
  <td>${view.summary}</td>
  <td>${view.connectionId}</td>
  <td>${utc(view.createdAt)}</td>
  <td>${utc(view.expiresAt)}</td>
</tr>`;
}

function listBody(views: readonly ApprovalView[]): Html {
  if (views.length === 0) return html`<p class="empty">Nothing awaits your approval.</p>`;
  return html`<table class="list">
<thead><tr><th>Action</th><th>Summary</th><th>Requested by credential</th><th>Created</th><th>Expires</th></tr></thead>
<tbody>${views.map(row)}</tbody>
</table>`;
}

function decisionForms(view: ApprovalView, csrf: string): Html {
  const id = encodeURIComponent(view.id);
  return html`<div class="decide">
<form data-action="approve" method="post" action="/approvals/${id}/approve">
  ${csrfField(csrf)}<input type="hidden" name="content_hash" value="${view.contentHash ?? ''}">
  <button type="submit">Approve</button>
</form>
<form data-action="reject" method="post" action="/approvals/${id}/reject">
  ${csrfField(csrf)}<label>Reason (optional) <input type="text" name="reason" maxlength="500"></label>
  <button type="submit">Reject</button>
</form>
</div>`;
}

function detailBody(view: ApprovalView, csrf: string): Html {
  return html`<dl class="facts">
  <dt>Status</dt><dd data-status="${view.status}">${view.status}</dd>
  <dt>Summary</dt><dd data-summary>${view.summary}</dd>
  <dt>Tool</dt><dd>${view.tool}</dd>
  <dt>Requesting credential</dt><dd data-credential>${view.connectionId}</dd>
  <dt>Created</dt><dd>${utc(view.createdAt)}</dd>
  <dt>Expires</dt><dd>${utc(view.expiresAt)}</dd>
  ${view.decidedBy ? html`<dt>Decided by</dt><dd>${view.decidedBy}, ${utc(view.decidedAt)}</dd>` : ''}
</dl>
${view.content ? html`<h2>What will go out</h2><div class="content" data-content>${jsonHtml(view.content)}</div>` : ''}
${view.result ? html`<h2>Result</h2><div class="content" data-result>${jsonHtml(view.result)}</div>` : ''}
${view.status === 'pending' ? decisionForms(view, csrf) : ''}`;
}

/** The flash text for a decision. */
export function decisionMessage(decision: ApprovalDecision): string {
  switch (decision.outcome) {
    case 'executed':
      return 'Approved: sent.';
    case 'rejected':
      return 'Rejected.';
    case 'changed':
      return 'What would go out changed; review the new content.';
    case 'refused':
      return decision.message;
  }
}

/**
 * The person as an approver in each workspace they work in, their own first
 * (with the role they hold there): a member of another workspace decides
 * the actions they requested there with their rights there.
 */
async function approversOf(app: BookingApp, who: SignedIn): Promise<readonly Approver<Right>[]> {
  const workspaces = await app.people.workspacesOf(who.person.id);
  const others = workspaces.filter((w) => w.workspaceId !== who.person.workspaceId);
  return [
    approverOf(who),
    ...others.map((w) => ({ personId: who.person.id, tenantId: w.workspaceId, rights: new Set(w.rights) })),
  ];
}

/** The action `id` as one of the person's approvers may see it, and that approver; undefined when none may. */
async function viewFor(approvals: Approvals<Right>, approvers: readonly Approver<Right>[], id: string) {
  for (const approver of approvers) {
    const view = await approvals.view(id, approver);
    if (view) return { view, approver };
  }
  return undefined;
}

/**
 * Which of the person's approvers decides `id`: the only one for a person of
 * one workspace (core refuses it when it may not), else the one that may
 * see the action.
 */
async function deciderFor(approvals: Approvals<Right>, approvers: readonly Approver<Right>[], id: string) {
  if (approvers.length === 1) return approvers[0];
  return (await viewFor(approvals, approvers, id))?.approver;
}

const NOT_CONFIGURED = 'Approval by a person is not configured on this server.';
const NOT_FOUND = 'No action with this id awaits you. It may belong to someone else, or the link is wrong.';

/** The approvals list, one action's page, and its approve/reject forms. */
export function approvalRoutes(pages: Hono<PageEnv>, app: BookingApp): void {
  pages.get('/approvals', async (c) => {
    const who = signedIn(c);
    const approvals = approvalsOf(app);
    const approvers = approvals ? await approversOf(app, who) : [];
    const lists = await Promise.all(approvers.map((approver) => approvals?.listPending(approver) ?? []));
    const views = lists.flat().sort((a, b) => a.createdAt - b.createdAt);
    const { message, clear } = takeFlash(app, c, who);
    const body = approvals ? listBody(views) : html`<p class="empty">${NOT_CONFIGURED}</p>`;
    return render(200, { title: 'Approvals', who, flash: message, body }, clear);
  });
  pages.get('/approvals/:id', async (c) => {
    const who = signedIn(c);
    const approvals = approvalsOf(app);
    const found = approvals && (await viewFor(approvals, await approversOf(app, who), c.req.param('id')));
    if (!found) return errorPage(c, 404, 'Not found', NOT_FOUND);
    const { view } = found;
    const { message, clear } = takeFlash(app, c, who);
    return render(200, { title: view.title, who, flash: message, body: detailBody(view, who.csrf) }, clear);
  });
  pages.post('/approvals/:id/:decision{approve|reject}', async (c) => {
    const who = signedIn(c);
    const approvals = approvalsOf(app);
    if (!approvals) return errorPage(c, 404, 'Not found', NOT_CONFIGURED);
    const id = c.req.param('id');
    const fields = formOf(c);
    const approver = await deciderFor(approvals, await approversOf(app, who), id);
    if (!approver) return errorPage(c, 404, 'Not found', NOT_FOUND);
    const decision =
      c.req.param('decision') === 'approve'
        ? await approvals.approve(id, approver, { contentHash: fields.get('content_hash') ?? '' })
        : await approvals.reject(id, approver, fields.get('reason')?.slice(0, 500) || undefined);
    if (decision.outcome === 'refused' && (decision.code === 'not_found' || decision.code === 'not_allowed'))
      return errorPage(c, 404, 'Not found', NOT_FOUND);
    const location = `/approvals/${encodeURIComponent(id)}`;
    return seeOther(location, [flashCookie(app, c, who, decisionMessage(decision))]);
  });
}
