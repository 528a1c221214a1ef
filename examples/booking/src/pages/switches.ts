import type { AuditRow } from '@gatehousejs/core';
import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { BookingApp } from '../app.js';
import { readAudit } from './auditReader.js';
import { formOf, type PageContext, type PageEnv, type SignedIn, signedIn } from './context.js';
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
): Html {
  return html`<form data-switch="${kind}" method="post" action="/switches/${kind}">
  ${csrfField(csrf)}<input type="hidden" name="on" value="${on ? '1' : '0'}">
  <button type="submit" ${disabled ? 'disabled' : ''}>${label}</button>
</form>`;
}

async function switchesBody(app: BookingApp, who: SignedIn): Promise<Html> {
  const ws = who.person.workspaceId;
  const [killed, access, globalRow, workspaceRow] = await Promise.all([
    app.switches.isGlobalOn(),
    app.switches.tenantAccess(ws),
    lastChange(app, null, GLOBAL_KEY),
    lastChange(app, ws, tenantKey(ws)),
  ]);
  const operator = who.person.operator;
  return html`<section class="switch">
<h2>Global kill switch</h2>
<p>Every MCP request of every workspace: <strong data-state="global">${killed ? 'on (agents stopped, 503)' : 'off (agents served)'}</strong></p>
${await changedBy(app, globalRow)}
${switchForm('global', who.csrf, !killed, killed ? 'Turn the kill switch off' : 'Turn the kill switch on', !operator)}
${operator ? '' : html`<p class="note">Only the operator may change the global kill switch.</p>`}
</section>
<section class="switch">
<h2>Agent access for ${who.workspaceName}</h2>
<p>MCP tools for this workspace: <strong data-state="workspace">${access ? 'on' : 'off'}</strong></p>
${await changedBy(app, workspaceRow)}
${switchForm('workspace', who.csrf, !access, access ? 'Turn agent access off' : 'Turn agent access on', false)}
</section>`;
}

const ownersOnly = (c: PageContext) =>
  errorPage(c, 403, 'Owners only', 'Only a workspace owner may see and change the switches.');

/** Parses the `on` field: "1" or "0". */
const onOf = (value: string | undefined): boolean | undefined =>
  value === '1' ? true : value === '0' ? false : undefined;

/** The kill switches page (owners only; the global switch for the operator only), audited with channel `admin`. */
export function switchRoutes(pages: Hono<PageEnv>, app: BookingApp): void {
  pages.get('/switches', async (c) => {
    const who = signedIn(c);
    if (who.person.role !== 'owner') return ownersOnly(c);
    const { message, clear } = takeFlash(app, c, who);
    return render(200, { title: 'Switches', who, flash: message, body: await switchesBody(app, who) }, clear);
  });
  pages.post('/switches/:kind{global|workspace}', async (c) => {
    const who = signedIn(c);
    if (who.person.role !== 'owner') return ownersOnly(c);
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
      await app.switches.setTenantAccess(who.person.workspaceId, on, by);
      message = on ? 'Agent access on for this workspace.' : 'Agent access off for this workspace.';
    }
    return seeOther('/switches', [flashCookie(app, c, who, message)]);
  });
}
