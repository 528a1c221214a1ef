import type { ApprovalDecision, Approvals, ApprovalView, Approver } from '@gatehousejs/core';
import type { Hono } from 'hono';
import { cardHtml } from '../internal/card.js';
import type { ConsoleEnv } from '../internal/context.js';
import { formOf, signedIn } from '../internal/context.js';
import { html } from '../internal/html.js';
import type { Kit } from '../internal/kit.js';
import { csrfField } from '../internal/layout.js';
import type { Html, SignedIn } from '../options.js';

/** The words of a tool's action: its verb on the approve button, what happened once approved. */
function wordsOf(kit: Kit, view: ApprovalView): { verb: string; done: string } {
  const words = kit.runtime.options.actions?.[view.tool];
  return { verb: words?.verb ?? view.title, done: words?.done ?? 'sent' };
}

/** Who asks: the requesting token's client label and its owner's name, or its id when it is gone. */
async function requester(kit: Kit, view: ApprovalView): Promise<Html> {
  const record = await kit.runtime.options.credentialStore.findById(view.connectionId);
  if (!record) return html`<span data-credential="${view.connectionId}">${view.connectionId}</span>`;
  const owner = await kit.runtime.nameOf(record.creatorId);
  return html`<span data-credential="${view.connectionId}">${record.clientLabel}</span>, token of ${owner}`;
}

async function row(kit: Kit, view: ApprovalView): Promise<Html> {
  const destructive = view.effect === 'delete';
  return html`<tr${destructive ? html` class="destructive"` : ''}>
  <td><a data-approval-id="${view.id}" href="${kit.runtime.path(`/approvals/${encodeURIComponent(view.id)}`)}">${view.title}</a></td>
  <td>${view.summary}</td>
  <td>${await requester(kit, view)}</td>
  <td>${await kit.time(view.createdAt, view.tenantId)}</td>
  <td>${await kit.time(view.expiresAt, view.tenantId)}</td>
</tr>`;
}

async function listBody(kit: Kit, views: readonly ApprovalView[]): Promise<Html> {
  if (views.length === 0) return html`<p class="empty">Nothing awaits your approval.</p>`;
  const rows = await Promise.all(views.map((view) => row(kit, view)));
  return html`<p>Actions an assistant asked for that wait for you. Nothing is sent until you approve it.</p>
<table class="list">
<thead><tr><th scope="col">Action</th><th scope="col">Summary</th><th scope="col">Asked by</th><th scope="col">Asked</th><th scope="col">Expires</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

function decisionForms(kit: Kit, view: ApprovalView, csrf: string): Html {
  const id = encodeURIComponent(view.id);
  const destructive = view.effect === 'delete';
  return html`<div class="decide">
<form data-action="approve" method="post" action="${kit.runtime.path(`/approvals/${id}/approve`)}">
  ${csrfField(csrf)}<input type="hidden" name="content_hash" value="${view.contentHash ?? ''}">
  ${destructive ? html`<p class="warning">This cannot be undone.</p>` : ''}
  <button type="submit"${destructive ? html` class="danger"` : ''}>Approve: ${wordsOf(kit, view).verb}</button>
</form>
<form data-action="reject" method="post" action="${kit.runtime.path(`/approvals/${id}/reject`)}">
  ${csrfField(csrf)}<label>Reason (optional) <input type="text" name="reason" maxlength="500"></label>
  <button type="submit">Reject</button>
</form>
</div>`;
}

/** Where the action stands, in words: what happened, by whom, when, and what to do now. */
async function standing(kit: Kit, view: ApprovalView): Promise<Html> {
  const by = view.decidedBy ? await kit.runtime.nameOf(view.decidedBy) : undefined;
  const at = view.decidedAt === undefined ? '' : await kit.time(view.decidedAt, view.tenantId);
  switch (view.status) {
    case 'pending':
      return html`<p class="status" data-status="pending">Waiting for your decision. It expires ${await kit.time(view.expiresAt, view.tenantId)}.</p>`;
    case 'executed':
      return html`<p class="status done" data-status="executed">Approved${by ? html` by ${by}` : ''}${at ? html`, ${at}` : ''}: ${wordsOf(kit, view).done}.</p>`;
    case 'rejected':
      return html`<p class="status" data-status="rejected">Rejected${by ? html` by ${by}` : ''}${at ? html`, ${at}` : ''}. Nothing was sent.</p>`;
    case 'expired':
      return html`<p class="status" data-status="expired">This request expired ${await kit.time(view.expiresAt, view.tenantId)} without a decision. Nothing was sent. If it is still needed, ask the assistant again.</p>`;
    case 'closed':
      return html`<p class="status" data-status="closed">This request is closed${by ? html` (decided by ${by}${at ? html`, ${at}` : ''})` : ''}. Nothing more will be sent for it.</p>`;
  }
}

async function detailBody(kit: Kit, view: ApprovalView, csrf: string): Promise<Html> {
  const now = kit.runtime.now();
  const pending = view.status === 'pending';
  return html`${await standing(kit, view)}
<p class="lead" data-summary>${view.summary}</p>
${view.problem ? html`<p class="warning" data-problem>${view.problem}</p>` : ''}
${view.content === undefined ? '' : html`<section aria-labelledby="what"><h2 id="what">${pending ? 'What will go out' : 'What it was to send'}</h2><div class="content${view.effect === 'delete' ? ' destructive' : ''}" data-content>${cardHtml(view.content, now)}</div></section>`}
${view.result ? html`<section aria-labelledby="result"><h2 id="result">What happened</h2><div class="content" data-result>${cardHtml(view.result, now)}</div></section>` : ''}
<dl class="facts">
  <dt>Asked by</dt><dd>${await requester(kit, view)}</dd>
  <dt>Asked</dt><dd>${await kit.time(view.createdAt, view.tenantId)}</dd>
  <dt>Tool</dt><dd><code>${view.tool}</code></dd>
</dl>
${view.content === undefined ? '' : html`<details><summary>The exact content, as data</summary><pre class="raw" data-content-raw>${JSON.stringify(view.content, null, 2)}</pre></details>`}
${pending ? decisionForms(kit, view, csrf) : ''}`;
}

/** What a refusal of a decision means, and what to do. */
function refusalMessage(decision: { code: string; message: string }): string {
  if (decision.code === 'closed')
    return `${decision.message} Nothing was sent by your decision; the page shows who decided, and when.`;
  return decision.message;
}

/** The one-time message after a decision. */
export function decisionMessage(decision: ApprovalDecision, done = 'sent'): string {
  switch (decision.outcome) {
    case 'executed':
      return `Approved: ${done}.`;
    case 'rejected':
      return 'Rejected.';
    case 'changed':
      return 'What would go out changed; review the new content.';
    case 'refused':
      return refusalMessage(decision);
  }
}

/**
 * The person as an approver in each workspace they work in, their home one
 * first, with the rights they hold there now: a member of another workspace
 * decides the actions they requested there with their rights there.
 */
function approversOf(who: SignedIn): readonly Approver[] {
  return who.workspaces.map((w) => ({ personId: who.id, tenantId: w.id, rights: new Set(w.rights) }));
}

/** The action `id` as one of the person's approvers may see it, and that approver; undefined when none may. */
async function viewFor(approvals: Approvals, approvers: readonly Approver[], id: string) {
  for (const approver of approvers) {
    const view = await approvals.view(id, approver);
    if (view) return { view, approver };
  }
  return undefined;
}

/** Which approver decides `id`: the only one of a person of one workspace, else the one that may see it. */
async function deciderFor(approvals: Approvals, approvers: readonly Approver[], id: string) {
  if (approvers.length === 1) return approvers[0];
  return (await viewFor(approvals, approvers, id))?.approver;
}

const NOT_CONFIGURED = 'Approval by a person is not configured on this server.';
const NOT_FOUND = 'No action with this id awaits you. It may belong to someone else, or the link is wrong.';

/** The approvals list, one action's page, and its approve and reject forms (I9). */
export function approvalRoutes(app: Hono<ConsoleEnv>, kit: Kit): void {
  const approvals = kit.runtime.options.approvals;
  app.get('/approvals', async (c) => {
    const who = signedIn(c);
    const lists = await Promise.all(
      approversOf(who).map((approver) => approvals?.listPending(approver) ?? []),
    );
    const views = lists.flat().sort((a, b) => a.createdAt - b.createdAt);
    const { message, clear } = kit.takeFlash(c);
    const body = approvals ? await listBody(kit, views) : html`<p class="empty">${NOT_CONFIGURED}</p>`;
    return kit.render(c, 200, { title: 'Approvals', flash: message, body }, clear);
  });
  app.get('/approvals/:id', async (c) => {
    const who = signedIn(c);
    const found = approvals && (await viewFor(approvals, approversOf(who), c.req.param('id')));
    if (!found) return kit.error(c, 404, 'Not found', NOT_FOUND);
    const { message, clear } = kit.takeFlash(c);
    const body = await detailBody(kit, found.view, who.csrf);
    return kit.render(c, 200, { title: found.view.title, flash: message, body }, clear);
  });
  app.post('/approvals/:id/:decision{approve|reject}', async (c) => {
    const who = signedIn(c);
    if (!approvals) return kit.error(c, 404, 'Not found', NOT_CONFIGURED);
    const id = c.req.param('id');
    const fields = formOf(c);
    const approver = await deciderFor(approvals, approversOf(who), id);
    if (!approver) return kit.error(c, 404, 'Not found', NOT_FOUND);
    const decision =
      c.req.param('decision') === 'approve'
        ? await approvals.approve(id, approver, { contentHash: fields.get('content_hash') ?? '' })
        : await approvals.reject(id, approver, fields.get('reason')?.slice(0, 500) || undefined);
    if (decision.outcome === 'refused' && (decision.code === 'not_found' || decision.code === 'not_allowed'))
      return kit.error(c, 404, 'Not found', NOT_FOUND);
    const done = decision.outcome === 'refused' ? undefined : wordsOf(kit, decision.view).done;
    return kit.seeOther(c, `/approvals/${encodeURIComponent(id)}`, decisionMessage(decision, done));
  });
}
