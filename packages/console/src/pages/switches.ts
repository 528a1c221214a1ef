import type { AuditRow } from '@gatehousejs/core';
import type { Hono } from 'hono';
import type { ConsoleContext, ConsoleEnv } from '../internal/context.js';
import { formOf, signedIn } from '../internal/context.js';
import { html } from '../internal/html.js';
import type { Kit } from '../internal/kit.js';
import { csrfField } from '../internal/layout.js';
import type { ConsoleWorkspace, Html, SignedIn } from '../options.js';

/** The audit keys `@gatehousejs/access`'s switches write their rows under. */
const GLOBAL_KEY = 'mcp.kill';
const tenantKey = (tenantId: string) => `mcp.tenant.${tenantId}`;

/** The workspaces a person owns now: the Switches and Audit pages act on these and on no other. */
export const ownedBy = (who: SignedIn): readonly ConsoleWorkspace[] => who.workspaces.filter((w) => w.owner);

/**
 * The workspace a request names among `workspaces`, or the first when it
 * names none; undefined for one not among them.
 */
export function chosenWorkspace(
  workspaces: readonly ConsoleWorkspace[],
  named: string | undefined,
): ConsoleWorkspace | undefined {
  return named ? workspaces.find((w) => w.id === named) : workspaces[0];
}

/** The newest `switch.set` audit row of a switch (global rows carry no tenant). */
async function lastChange(kit: Kit, tenantId: string | null, key: string): Promise<AuditRow | undefined> {
  const rows = await kit.runtime.options.audit.list({ tenantId, action: 'switch.set', limit: 200 });
  return rows.find((row) => row.objectIds.includes(key));
}

async function changedBy(kit: Kit, row: AuditRow | undefined, zoneOf: string): Promise<Html> {
  if (!row) return html`<p class="changed" data-changed>Never changed (default).</p>`;
  const name = row.actorId ? await kit.runtime.nameOf(row.actorId) : 'unknown';
  return html`<p class="changed" data-changed>Last changed by <span data-changed-by>${name}</span> via ${row.channel}, ${await kit.time(row.at, zoneOf)}.</p>`;
}

function switchForm(
  kit: Kit,
  kind: 'global' | 'workspace',
  csrf: string,
  on: boolean,
  label: string,
  disabled: boolean,
  workspaceId?: string,
): Html {
  return html`<form data-switch="${kind}" method="post" action="${kit.runtime.path(`/switches/${kind}`)}">
  ${csrfField(csrf)}<input type="hidden" name="on" value="${on ? '1' : '0'}">
  ${workspaceId === undefined ? '' : html`<input type="hidden" name="workspace" value="${workspaceId}">`}
  <button type="submit" ${disabled ? 'disabled' : ''}>${label}</button>
</form>`;
}

/** One workspace's agent access switch, with its last change. */
async function workspaceSection(kit: Kit, who: SignedIn, workspace: ConsoleWorkspace): Promise<Html> {
  const { switches } = kit.runtime.options;
  const [access, row] = await Promise.all([
    switches.tenantAccess(workspace.id),
    lastChange(kit, workspace.id, tenantKey(workspace.id)),
  ]);
  const label = access ? 'Turn agent access off' : 'Turn agent access on';
  return html`<section class="switch" data-workspace="${workspace.id}">
<h2>Agent access for ${workspace.name}</h2>
<p>MCP tools for this workspace: <strong data-state="workspace">${access ? 'on' : 'off'}</strong></p>
${await changedBy(kit, row, workspace.id)}
${switchForm(kit, 'workspace', who.csrf, !access, label, false, workspace.id)}
</section>`;
}

async function switchesBody(kit: Kit, who: SignedIn, owned: readonly ConsoleWorkspace[]): Promise<Html> {
  const [killed, globalRow] = await Promise.all([
    kit.runtime.options.switches.isGlobalOn(),
    lastChange(kit, null, GLOBAL_KEY),
  ]);
  const operator = who.operator === true;
  const sections = await Promise.all(owned.map((workspace) => workspaceSection(kit, who, workspace)));
  return html`<section class="switch">
<h2>Global kill switch</h2>
<p>Every MCP request of every workspace: <strong data-state="global">${killed ? 'on (agents stopped, 503)' : 'off (agents served)'}</strong></p>
${await changedBy(kit, globalRow, who.home.id)}
${switchForm(kit, 'global', who.csrf, !killed, killed ? 'Turn the kill switch off' : 'Turn the kill switch on', !operator)}
${operator ? '' : html`<p class="note">Only the operator may change the global kill switch.</p>`}
</section>
${sections}`;
}

/** Parses the `on` field: "1" or "0". */
const onOf = (value: string | undefined): boolean | undefined =>
  value === '1' ? true : value === '0' ? false : undefined;

/**
 * The kill switches page (I6), audited with channel `admin`: the agent
 * access of every workspace the person owns now, the global switch for the
 * operator only. A posted workspace they do not own is 404 and changes nothing.
 */
export function switchRoutes(app: Hono<ConsoleEnv>, kit: Kit): void {
  const ownersOnly = (c: ConsoleContext) =>
    kit.error(c, 403, 'Owners only', 'Only a workspace owner may see and change the switches.');
  app.get('/switches', async (c) => {
    const who = signedIn(c);
    const owned = ownedBy(who);
    if (owned.length === 0 && !who.operator) return ownersOnly(c);
    const { message, clear } = kit.takeFlash(c);
    const body = await switchesBody(kit, who, owned);
    return kit.render(c, 200, { title: 'Switches', flash: message, body }, clear);
  });
  app.post('/switches/:kind{global|workspace}', async (c) => {
    const who = signedIn(c);
    const owned = ownedBy(who);
    if (owned.length === 0 && !who.operator) return ownersOnly(c);
    const on = onOf(formOf(c).get('on'));
    if (on === undefined) return kit.error(c, 400, 'Bad request', 'The field "on" must be "1" or "0".');
    const by = { actorId: who.id, channel: 'admin' };
    const { switches } = kit.runtime.options;
    let message: string;
    if (c.req.param('kind') === 'global') {
      if (!who.operator)
        return kit.error(c, 403, 'Operator only', 'Only the operator may change the global kill switch.');
      await switches.setGlobal(on, by);
      message = on ? 'Global kill switch on: every MCP request answers 503.' : 'Global kill switch off.';
    } else {
      // a workspace the person does not own now is not theirs to see: the same 404 as one that does not exist
      const workspace = chosenWorkspace(owned, formOf(c).get('workspace') || who.home.id);
      if (!workspace) return kit.error(c, 404, 'Not found', 'You own no workspace with this id.');
      await switches.setTenantAccess(workspace.id, on, by);
      const name = workspace.id === who.home.id ? 'this workspace' : workspace.name;
      message = on ? `Agent access on for ${name}.` : `Agent access off for ${name}.`;
    }
    return kit.seeOther(c, '/switches', message);
  });
}
