import { ToolError } from '@gatehousejs/core';
import type { Hono } from 'hono';
import type { BookingApp } from '../app.js';
import type { Right } from '../domain/model.js';
import { formOf, nowOf, type PageEnv, type SignedIn, signedIn } from './context.js';
import { html } from './html.js';
import { csrfField, errorPage, type Html, render, seeOther, utc } from './layout.js';
import { flashCookie, takeFlash } from './session.js';
import { listTokens, type TokenRow } from './tokenList.js';

/** Toolsets a token may be limited to (empty: every tool its rights allow). */
const TOOLSETS = ['compact'] as const;
const DAY_MS = 86_400_000;

function tokenRow(token: TokenRow, csrf: string): Html {
  return html`<tr data-token-id="${token.id}">
  <td>${token.id}</td>
  <td>${token.clientLabel}</td>
  <td>${token.creatorId}</td>
  <td>${token.rights.join(', ')}${token.toolset ? html` (toolset ${token.toolset})` : ''}</td>
  <td>${utc(token.createdAt)}</td>
  <td>${token.expiresAt === null ? 'never' : utc(token.expiresAt)}</td>
  <td data-revoked="${token.revokedAt === null ? 'no' : 'yes'}">${token.revokedAt === null ? 'no' : `yes, ${utc(token.revokedAt)}`}</td>
  <td>${
    token.revokedAt === null
      ? html`<form data-action="revoke" method="post" action="/tokens/${encodeURIComponent(token.id)}/revoke">${csrfField(csrf)}<button type="submit">Revoke</button></form>`
      : ''
  }</td>
</tr>`;
}

function mintForm(who: SignedIn): Html {
  return html`<form data-action="mint" method="post" action="/tokens">
  ${csrfField(who.csrf)}
  <label>Client label <input type="text" name="label" maxlength="100" required></label>
  <fieldset><legend>Rights (only rights you hold now)</legend>
  ${who.rights.map((right) => html`<label><input type="checkbox" name="rights" value="${right}"> ${right}</label>`)}
  </fieldset>
  <label>Toolset <select name="toolset"><option value="">all tools</option>${TOOLSETS.map((t) => html`<option value="${t}">${t}</option>`)}</select></label>
  <label>Expires in days (optional) <input type="number" name="expires_days" min="1" max="365"></label>
  <button type="submit">Create token</button>
</form>`;
}

async function tokensPage(
  app: BookingApp,
  who: SignedIn,
  extra: { status: number; minted?: string; error?: string; flash?: string },
) {
  const owner = who.person.role === 'owner';
  const tokens = await listTokens(app, who.person.workspaceId, owner ? undefined : who.person.id);
  const elsewhere = await listTokens(app, who.person.workspaceId, who.person.id, true);
  const body = html`${extra.minted ? html`<section class="minted"><p>Your new MCP token, shown once (only its hash is kept):</p><pre data-minted-token>${extra.minted}</pre></section>` : ''}
${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
<p>${owner ? 'Every MCP token of this workspace.' : 'Your MCP tokens in this workspace.'}</p>
<table class="list">
<thead><tr><th>Id</th><th>Client</th><th>Creator</th><th>Rights</th><th>Created</th><th>Expires</th><th>Revoked</th><th></th></tr></thead>
<tbody>${tokens.map((token) => tokenRow(token, who.csrf))}</tbody>
</table>
${
  elsewhere.length === 0
    ? ''
    : html`<h2>Your MCP tokens in other workspaces</h2>
<p>Tokens you granted as a member of another workspace (the consent page's workspace picker).</p>
<table class="list" data-list="elsewhere">
<thead><tr><th>Id</th><th>Client</th><th>Creator</th><th>Rights</th><th>Created</th><th>Expires</th><th>Revoked</th><th></th></tr></thead>
<tbody>${elsewhere.map((token) => tokenRow(token, who.csrf))}</tbody>
</table>`
}
<h2>New MCP token</h2>
${mintForm(who)}`;
  return render(extra.status, { title: 'Tokens', who, flash: extra.flash, body });
}

/** Reads the mint form; an error message names the field to fix. */
function mintRequest(who: SignedIn, form: ReturnType<typeof formOf>, now: number) {
  const label = (form.get('label') ?? '').trim();
  if (!label || label.length > 100) return { error: 'The client label must be 1–100 characters.' } as const;
  const held = new Set<string>(who.rights);
  const rights = [...new Set(form.all('rights'))];
  const refused = rights.filter((right) => !held.has(right));
  if (refused.length > 0)
    return { error: `You do not hold ${refused.join(', ')} now, so the token cannot grant it.` } as const;
  const toolset = form.get('toolset') ?? '';
  if (toolset !== '' && !(TOOLSETS as readonly string[]).includes(toolset))
    return { error: `Unknown toolset; choose one of: ${TOOLSETS.join(', ')}.` } as const;
  const daysText = form.get('expires_days') ?? '';
  const days = daysText === '' ? undefined : Number(daysText);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 365))
    return { error: 'Expires in days must be a whole number from 1 to 365.' } as const;
  return {
    request: {
      tenantIds: [who.person.workspaceId],
      creatorId: who.person.id,
      rights: rights as Right[],
      clientLabel: label,
      toolset: toolset || null,
      expiresAt: days === undefined ? null : now + days * DAY_MS,
      channel: 'admin',
    },
  } as const;
}

/**
 * The MCP tokens page: list (owners: the workspace's; others: their own; and
 * everyone's own tokens in other workspaces), mint (shown once), revoke; audited.
 */
export function tokenRoutes(pages: Hono<PageEnv>, app: BookingApp): void {
  pages.get('/tokens', async (c) => {
    const who = signedIn(c);
    const { message, clear } = takeFlash(app, c, who);
    const response = await tokensPage(app, who, { status: 200, flash: message });
    for (const [name, value] of Object.entries(clear)) response.headers.append(name, value);
    return response;
  });
  pages.post('/tokens', async (c) => {
    const who = signedIn(c);
    const parsed = mintRequest(who, formOf(c), nowOf(app));
    if ('error' in parsed) return tokensPage(app, who, { status: 400, error: parsed.error });
    try {
      const { token } = await app.credentials.mint(parsed.request);
      return tokensPage(app, who, { status: 200, minted: token });
    } catch (error) {
      if (!ToolError.is(error)) throw error;
      return tokensPage(app, who, { status: 400, error: error.message });
    }
  });
  pages.post('/tokens/:id/revoke', async (c) => {
    const who = signedIn(c);
    const id = c.req.param('id');
    const record = await app.credentialStore.findById(id);
    // the creator may revoke their own token in any workspace; an owner, any token of their workspace
    const ownersWorkspace = who.person.role === 'owner' && record?.tenantIds.includes(who.person.workspaceId);
    if (!record || (record.creatorId !== who.person.id && !ownersWorkspace)) {
      return errorPage(c, 404, 'Not found', 'No MCP token with this id is yours to revoke.');
    }
    const revoked = await app.credentials.revoke(id, { actorId: who.person.id, channel: 'admin' });
    return seeOther('/tokens', [
      flashCookie(app, c, who, revoked ? `Revoked ${id}.` : `${id} was already revoked.`),
    ]);
  });
}
