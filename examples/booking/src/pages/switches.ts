import type { AuditRow } from '@gatehousejs/core';
import type { Hono } from 'hono';
import type { BookingApp } from '../app.js';
import type { Membership } from '../services/people.js';
import { readAudit } from './auditReader.js';
import {
  chosenWorkspace,
  formOf,
  ownedWorkspaces,
  type PageContext,
  type PageEnv,
  type SignedIn,
  signedIn,
} from './context.js';
import { html } from './html.js';
import { csrfField, errorPage, type Html, render, seeOther, utc } from './layout.js';
import { flashCookie, takeFlash } from './session.js';

const GLOBAL_KEY = 'mcp.kill';
const tenantKey = (tenantId: string) => `mcp.tenant.${tenantId}`;

/** The newest `switch.set` audit row for a switch key (global rows carry no tenant). */
async function lastChange(
  app: BookingApp,
  tenantId: string | null,
  key: string,
): Promise<AuditRow | undefined> {
  const rows = await readAudit(app, { tenantId, action: 'switch.set', limit: 200 });
  return rows.find((row) => row.objectIds.includes(key));
}

async function changedBy(app: BookingApp, row: AuditRow | undefined): Promise<Html> {
  if (!row) return html`<p class="changed" data-changed>Never changed (default).</p>`;
  const person = row.actorId ? await app.people.byId(row.actorId) : undefined;
  const name = person ? `${person.name} (${person.id})` : (row.actorId ?? 'unknown');
  return html`<p class="changed" data-changed>Last changed by <span data-changed-by>${name}</span> via ${row.channel}, ${utc(row.at)}.</p>`;
}

function switchForm(
  kind: 'global' | 'workspace',
  csrf: string,
  on: boolean,
  label: string,
  disabled: boolean,
  workspaceId?: string,
): Html {
  return html`<form data-switch="${kind}" method="post" action="/switches/${kind}">
  ${csrfField(csrf)}<input type="hidden" name="on" value="${on ? '1' : '0'}">
  ${workspaceId === undefined ? '' : html`<input type="hidden" name="workspace" value="${workspaceId}">`}
  <button type="submit" ${disabled ? 'disabled' : ''}>${label}</button>
</form>`;
}

/** One workspace's agent access switch, with its last change. */
async function workspaceSection(app: BookingApp, who: SignedIn, workspace: Membership): Promise<Html> {
  const ws = workspace.workspaceId;
  const [access, row] = await Promise.all([
    app.switches.tenantAccess(ws),
    lastChange(app, ws, tenantKey(ws)),
  ]);
  const label = access ? 'Turn agent access off' : 'Turn agent access on';
  return html`<section class="switch" data-workspace="${ws}">
<h2>Agent access for ${workspace.name}</h2>
<p>MCP tools for this workspace: <strong data-state="workspace">${access ? 'on' : 'off'}</strong></p>
${await changedBy(app, row)}
${switchForm('workspace', who.csrf, !access, label, false, ws)}
</section>`;
}

async function switchesBody(app: BookingApp, who: SignedIn, owned: readonly Membership[]): Promise<Html> {
  const [killed, globalRow] = await Promise.all([
    app.switches.isGlobalOn(),
    lastChange(app, null, GLOBAL_KEY),
  ]);
  const operator = who.person.operator;
  const sections = await Promise.all(owned.map((workspace) => workspaceSection(app, who, workspace)));
  return html`<section class="switch">
<h2>Global kill switch</h2>
<p>Every MCP request of every workspace: <strong data-state="global">${killed ? 'on (agents stopped, 503)' : 'off (agents served)'}</strong></p>
${await changedBy(app, globalRow)}
${switchForm('global', who.csrf, !killed, killed ? 'Turn the kill switch off' : 'Turn the kill switch on', !operator)}
${operator ? '' : html`<p class="note">Only the operator may change the global kill switch.</p>`}
</section>
${sections}`;
}

const ownersOnly = (c: PageContext) =>
  errorPage(c, 403, 'Owners only', 'Only a workspace owner may see and change the switches.');

/** Parses the `on` field: "1" or "0". */
const onOf = (value: string | undefined): boolean | undefined =>
  value === '1' ? true : value === '0' ? false : undefined;

/**
 * The kill switches page, audited with channel `admin`: the agent access of
 * every workspace the person owns now (their own and those they are an
 * owner member of), the global switch for the operator only. A posted
 * workspace they do not own is 404 and changes nothing.
 */
export function switchRoutes(pages: Hono<PageEnv>, app: BookingApp): void {
  pages.get('/switches', async (c) => {
    const who = signedIn(c);
    const owned = await ownedWorkspaces(app, who);
    if (owned.length === 0) return ownersOnly(c);
    const { message, clear } = takeFlash(app, c, who);
    const body = await switchesBody(app, who, owned);
    return render(200, { title: 'Switches', who, flash: message, body }, clear);
  });
  pages.post('/switches/:kind{global|workspace}', async (c) => {
    const who = signedIn(c);
    const owned = await ownedWorkspaces(app, who);
    if (owned.length === 0) return ownersOnly(c);
    const on = onOf(formOf(c).get('on'));
    if (on === undefined) return errorPage(c, 400, 'Bad request', 'The field "on" must be "1" or "0".');
    const by = { actorId: who.person.id, channel: 'admin' };
    let message: string;
    if (c.req.param('kind') === 'global') {
      if (!who.person.operator) {
        return errorPage(c, 403, 'Operator only', 'Only the operator may change the global kill switch.');
      }
      await app.switches.setGlobal(on, by);
      message = on ? 'Global kill switch on: every MCP request answers 503.' : 'Global kill switch off.';
    } else {
      // a workspace the person does not own now is not theirs to see: the same 404 as one that does not exist
      const workspace = chosenWorkspace(owned, formOf(c).get('workspace') || who.person.workspaceId);
      if (!workspace) return errorPage(c, 404, 'Not found', 'You own no workspace with this id.');
      await app.switches.setTenantAccess(workspace.workspaceId, on, by);
      const name = workspace.workspaceId === who.person.workspaceId ? 'this workspace' : workspace.name;
      message = on ? `Agent access on for ${name}.` : `Agent access off for ${name}.`;
    }
    return seeOther('/switches', [flashCookie(app, c, who, message)]);
  });
}
