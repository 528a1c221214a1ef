import type { MintRequest } from '@gatehousejs/access';
import { type CredentialRecord, ToolError } from '@gatehousejs/core';
import type { Hono } from 'hono';
import type { ConsoleContext, ConsoleEnv } from '../internal/context.js';
import { formOf, signedIn } from '../internal/context.js';
import { html } from '../internal/html.js';
import type { Kit } from '../internal/kit.js';
import { csrfField } from '../internal/layout.js';
import type { FormFields, Grant, Html, SignedIn } from '../options.js';

const DAY_MS = 86_400_000;
/** Tokens listed per table. */
const TOKENS_SHOWN = 200;

async function tokenRow(kit: Kit, token: CredentialRecord, csrf: string): Promise<Html> {
  const zone = token.tenantIds[0] ?? '';
  const revoke = html`<form data-action="revoke" method="post" action="${kit.runtime.path(`/tokens/${encodeURIComponent(token.id)}/revoke`)}">${csrfField(csrf)}<button type="submit">Revoke</button></form>`;
  return html`<tr data-token-id="${token.id}">
  <td>${token.id}</td>
  <td>${token.clientLabel}</td>
  <td>${await kit.runtime.nameOf(token.creatorId)}</td>
  <td>${token.rights.join(', ')}${token.toolset ? html` (toolset ${token.toolset})` : ''}</td>
  <td>${await kit.time(token.createdAt, zone)}</td>
  <td>${token.expiresAt === null ? 'never' : await kit.time(token.expiresAt, zone)}</td>
  <td data-revoked="${token.revokedAt === null ? 'no' : 'yes'}">${token.revokedAt === null ? 'no' : html`yes, ${await kit.time(token.revokedAt, zone)}`}</td>
  <td>${token.revokedAt === null ? revoke : ''}</td>
</tr>`;
}

async function tokenTable(
  kit: Kit,
  tokens: readonly CredentialRecord[],
  csrf: string,
  list?: string,
): Promise<Html> {
  const rows = await Promise.all(tokens.map((token) => tokenRow(kit, token, csrf)));
  return html`<table class="list"${list ? html` data-list="${list}"` : ''}>
<thead><tr><th scope="col">Id</th><th scope="col">Client</th><th scope="col">Owner</th><th scope="col">Rights</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Revoked</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

async function grantRow(kit: Kit, grant: Grant, csrf: string): Promise<Html> {
  const end = html`<form data-action="end-grant" method="post" action="${kit.runtime.path(`/tokens/grants/${encodeURIComponent(grant.id)}/revoke`)}">${csrfField(csrf)}<button type="submit">Disconnect</button></form>`;
  return html`<tr data-grant-id="${grant.id}">
  <td>${grant.clientName}</td>
  <td>${await kit.runtime.nameOf(grant.personId)}</td>
  <td>${grant.rights.join(', ')}</td>
  <td>${await kit.time(grant.createdAt, grant.workspaceId)}</td>
  <td>${grant.expiresAt === null ? 'never' : await kit.time(grant.expiresAt, grant.workspaceId)}</td>
  <td>${grant.revokedAt === null ? end : 'disconnected'}</td>
</tr>`;
}

function mintForm(kit: Kit, who: SignedIn): Html {
  const toolsets = kit.runtime.options.tokens?.toolsets ?? [];
  const maxDays = kit.runtime.options.tokens?.maxDays ?? 365;
  return html`<form data-action="mint" method="post" action="${kit.runtime.path('/tokens')}">
  ${csrfField(who.csrf)}
  <label>Client label <input type="text" name="label" maxlength="100" required></label>
  <fieldset><legend>Rights (only rights you hold now)</legend>
  ${who.home.rights.map((right) => html`<label><input type="checkbox" name="rights" value="${right}"> ${right}</label>`)}
  </fieldset>
  ${toolsets.length === 0 ? '' : html`<label>Toolset <select name="toolset"><option value="">all tools</option>${toolsets.map((t) => html`<option value="${t}">${t}</option>`)}</select></label>`}
  <label>Expires in days (optional) <input type="number" name="expires_days" min="1" max="${maxDays}"></label>
  <button type="submit">Create token</button>
</form>`;
}

async function tokensPage(
  kit: Kit,
  c: ConsoleContext,
  extra: {
    status: number;
    minted?: string;
    error?: string;
    flash?: string;
    headers?: Record<string, string>;
  },
) {
  const who = signedIn(c);
  const { credentialStore, grants } = kit.runtime.options;
  const owner = who.home.owner;
  const mine = owner ? undefined : who.id;
  const [tokens, elsewhere, granted] = await Promise.all([
    credentialStore.list({ tenantId: who.home.id, creatorId: mine, limit: TOKENS_SHOWN }),
    credentialStore.list({ tenantId: who.home.id, creatorId: who.id, elsewhere: true, limit: TOKENS_SHOWN }),
    grants?.list({ workspaceId: who.home.id, personId: mine }) ?? [],
  ]);
  const body = html`${extra.minted ? html`<section class="minted"><p>Your new MCP token, shown once (only its hash is kept):</p><pre data-minted-token>${extra.minted}</pre></section>` : ''}
${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
<p>${owner ? 'Every MCP token of this workspace.' : 'Your MCP tokens in this workspace.'}</p>
${await tokenTable(kit, tokens, who.csrf)}
${
  elsewhere.length === 0
    ? ''
    : html`<h2>Your MCP tokens in other workspaces</h2>
<p>Tokens you granted as a member of another workspace.</p>
${await tokenTable(kit, elsewhere, who.csrf, 'elsewhere')}`
}
${
  grants
    ? html`<h2>Connected apps</h2>
${
  granted.length === 0
    ? html`<p class="empty">No app is connected.</p>`
    : html`<table class="list" data-list="grants">
<thead><tr><th scope="col">App</th><th scope="col">Person</th><th scope="col">Rights</th><th scope="col">Connected</th><th scope="col">Expires</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
<tbody>${await Promise.all(granted.map((grant) => grantRow(kit, grant, who.csrf)))}</tbody>
</table>`
}`
    : ''
}
<h2>New MCP token</h2>
${mintForm(kit, who)}`;
  return kit.render(c, extra.status, { title: 'Tokens', flash: extra.flash, body }, extra.headers);
}

/** Reads the mint form; an error message names the field to fix. */
function mintRequest(
  kit: Kit,
  who: SignedIn,
  form: FormFields,
  now: number,
): { readonly error: string } | { readonly request: MintRequest<string> } {
  const label = (form.get('label') ?? '').trim();
  if (!label || label.length > 100) return { error: 'The client label must be 1–100 characters.' };
  const held = new Set<string>(who.home.rights);
  const rights = [...new Set(form.all('rights'))];
  const refused = rights.filter((right) => !held.has(right));
  if (refused.length > 0)
    return { error: `You do not hold ${refused.join(', ')} now, so the token cannot grant it.` };
  const toolsets: readonly string[] = kit.runtime.options.tokens?.toolsets ?? [];
  const toolset = form.get('toolset') ?? '';
  if (toolset !== '' && !toolsets.includes(toolset))
    return { error: `Unknown toolset; choose one of: ${toolsets.join(', ') || 'none'}.` };
  const maxDays = kit.runtime.options.tokens?.maxDays ?? 365;
  const daysText = form.get('expires_days') ?? '';
  const days = daysText === '' ? undefined : Number(daysText);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > maxDays))
    return { error: `Expires in days must be a whole number from 1 to ${maxDays}.` };
  return {
    request: {
      tenantIds: [who.home.id],
      creatorId: who.id,
      rights: rights as string[],
      clientLabel: label,
      toolset: toolset || null,
      expiresAt: days === undefined ? null : now + days * DAY_MS,
      channel: 'admin',
    },
  };
}

/**
 * The MCP tokens page (I5): list (owners: the workspace's; others: their
 * own; and their own tokens in other workspaces), mint (shown once),
 * revoke, audited by `@gatehousejs/access`; and the grants another package lists.
 */
export function tokenRoutes(app: Hono<ConsoleEnv>, kit: Kit): void {
  const { credentials, credentialStore, grants } = kit.runtime.options;
  app.get('/tokens', async (c) => {
    const { message, clear } = kit.takeFlash(c);
    return tokensPage(kit, c, { status: 200, flash: message, headers: clear });
  });
  app.post('/tokens', async (c) => {
    const who = signedIn(c);
    const parsed = mintRequest(kit, who, formOf(c), kit.runtime.now());
    if ('error' in parsed) return tokensPage(kit, c, { status: 400, error: parsed.error });
    try {
      const { token } = await credentials.mint(parsed.request);
      return tokensPage(kit, c, { status: 200, minted: token });
    } catch (error) {
      if (!ToolError.is(error) || error.code === 'store_unavailable') throw error;
      return tokensPage(kit, c, { status: 400, error: error.message });
    }
  });
  app.post('/tokens/:id/revoke', async (c) => {
    const who = signedIn(c);
    const id = c.req.param('id');
    const record = await credentialStore.findById(id);
    // the creator may revoke their own token anywhere; an owner, any token of a workspace they own
    const owns = who.workspaces.some((w) => w.owner && record?.tenantIds.includes(w.id));
    if (!record || (record.creatorId !== who.id && !owns))
      return kit.error(c, 404, 'Not found', 'No MCP token with this id is yours to revoke.');
    const revoked = await credentials.revoke(id, { actorId: who.id, channel: 'admin' });
    return kit.seeOther(c, '/tokens', revoked ? `Revoked ${id}.` : `${id} was already revoked.`);
  });
  app.post('/tokens/grants/:id/revoke', async (c) => {
    const who = signedIn(c);
    if (!grants) return kit.error(c, 404, 'Not found', 'No app grants are listed here.');
    const id = c.req.param('id');
    const owner = who.home.owner;
    const listed = await grants.list({ workspaceId: who.home.id, personId: owner ? undefined : who.id });
    const grant = listed.find((g) => g.id === id);
    if (!grant)
      return kit.error(c, 404, 'Not found', 'No connected app with this id is yours to disconnect.');
    const ended = await grants.revoke(id, { actorId: who.id, channel: 'admin' });
    return kit.seeOther(
      c,
      '/tokens',
      ended ? `Disconnected ${grant.clientName}.` : `${grant.clientName} was already disconnected.`,
    );
  });
}
