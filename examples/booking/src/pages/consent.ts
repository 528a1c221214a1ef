import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { BookingApp } from '../app.js';
import { type ConsentRequest, consentRequest, denyConsent, grantConsent } from '../oauth/consent.js';
import { TOOLSETS } from '../oauth/scopes.js';
import type { Membership } from '../services/people.js';
import {
  chosenWorkspace,
  formOf,
  nowOf,
  type PageContext,
  type PageEnv,
  type SignedIn,
  signedIn,
} from './context.js';
import { readCookie } from './cookies.js';
import { csrfField, errorPage, type Html, render, seeOther } from './layout.js';

/**
 * The workspace picker, for a person who works in several: a plain GET form
 * (no script) that reloads the page for the chosen workspace. A token is for
 * one workspace (I3); to connect the client to another, authorize again.
 */
function workspacePicker(
  request: ConsentRequest,
  workspaces: readonly Membership[],
  chosen: Membership,
): Html {
  if (workspaces.length < 2) return html``;
  const action = `/oauth/consent/${encodeURIComponent(request.uid)}`;
  return html`<form data-form="workspace" method="get" action="${action}">
  <label>Workspace <select name="workspace">${workspaces.map(
    (w) =>
      html`<option value="${w.workspaceId}"${w.workspaceId === chosen.workspaceId ? html` selected` : ''}>${w.name} (${w.role})</option>`,
  )}</select></label>
  <button type="submit">Choose</button>
</form>`;
}

function consentForm(who: SignedIn, request: ConsentRequest, chosen: Membership): Html {
  const held = new Set<string>(chosen.rights);
  const action = `/oauth/consent/${encodeURIComponent(request.uid)}`;
  return html`<p>The client <strong data-client-name>${request.clientName}</strong> (<code data-client-id>${request.clientId}</code>) asks to act for you, ${who.person.name}, in the workspace <strong data-workspace>${chosen.name}</strong> through MCP. It will return to <code>${request.redirectUri}</code>.</p>
<form data-form="consent" method="post" action="${action}">
  ${csrfField(who.csrf)}
  <input type="hidden" name="workspace" value="${chosen.workspaceId}">
  <fieldset><legend>Rights it asks for (you can grant only rights you hold in ${chosen.name} now)</legend>
  ${request.rights.map((right) =>
    held.has(right)
      ? html`<label><input type="checkbox" name="rights" value="${right}" checked> ${right}</label>`
      : html`<p data-not-held="${right}">${right}: you do not hold this right in ${chosen.name}, so it cannot be granted.</p>`,
  )}
  </fieldset>
  <label>Toolset <select name="toolset"><option value="">all tools</option>${TOOLSETS.map((t) => html`<option value="${t}">${t}</option>`)}</select></label>
  <p>${request.offline ? 'It may stay connected (refresh tokens) until you revoke it on the Tokens page.' : 'Its access ends within ten minutes unless it asks again.'}</p>
  <button type="submit" name="decision" value="grant">Allow</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`;
}

/** The consent page for one workspace, with the picker when the person works in several. */
function consentPage(
  who: SignedIn,
  request: ConsentRequest,
  workspaces: readonly Membership[],
  chosen: Membership,
  status = 200,
  error?: string,
) {
  const body = html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}${workspacePicker(request, workspaces, chosen)}${consentForm(who, request, chosen)}`;
  return render(status, { title: 'Connect a client', who, body });
}

const EXPIRED = 'This authorization request is unknown or expired. Start again from the client.';

/**
 * Whether this browser started the authorization: the provider sets the
 * `_interaction` cookie to the uid, on this page's path, when it sends the
 * browser here. A consent link opened in another browser (sent to the person
 * by someone who started the request) is refused, so nobody can collect a
 * code for a grant another person made.
 */
function startedHere(c: PageContext, uid: string): boolean {
  return readCookie(c.req.raw, '_interaction') === uid;
}

const NOT_MEMBER = 'You do not work in that workspace. Choose one of yours on the consent page.';

const ELSEWHERE =
  'This authorization request was started in another browser. Start again from the client on this device.';

/**
 * The consent page of the OAuth authorization server (`/oauth/consent/:uid`),
 * behind the product's own sign-in, Origin check and CSRF token: it shows the
 * client, the workspace the token will be for (one tenant, I3; a person who
 * works in several picks one, their own first) and the rights asked for,
 * those the person does not hold there now not grantable (I4). The posted
 * workspace is checked against the person's memberships again. Allowing mints a
 * Gatehouse credential (audited, on the tokens page) that is the grant;
 * denying answers the client `access_denied`. Only the browser that started
 * the authorization may answer it (its `_interaction` cookie).
 */
export function consentRoutes(pages: Hono<PageEnv>, app: BookingApp): void {
  pages.get('/oauth/consent/:uid', async (c) => {
    if (!startedHere(c, c.req.param('uid'))) return errorPage(c, 403, 'Refused', ELSEWHERE);
    const request = await consentRequest(app.oauth, c.req.param('uid'));
    if (!request) return errorPage(c, 404, 'Not found', EXPIRED);
    const who = signedIn(c);
    const workspaces = await app.people.workspacesOf(who.person.id);
    const chosen = chosenWorkspace(workspaces, c.req.query('workspace') || undefined);
    if (!chosen) return errorPage(c, 404, 'Not found', NOT_MEMBER);
    return consentPage(who, request, workspaces, chosen);
  });
  pages.post('/oauth/consent/:uid', async (c) => {
    const who = signedIn(c);
    const form = formOf(c);
    const uid = c.req.param('uid');
    if (!startedHere(c, uid)) return errorPage(c, 403, 'Refused', ELSEWHERE);
    const request = await consentRequest(app.oauth, uid);
    if (!request) return errorPage(c, 404, 'Not found', EXPIRED);
    if (form.get('decision') !== 'grant') {
      const returnTo = await denyConsent(app.oauth, uid, nowOf(app));
      return returnTo ? seeOther(returnTo) : errorPage(c, 404, 'Not found', EXPIRED);
    }
    const workspaces = await app.people.workspacesOf(who.person.id);
    const chosen = chosenWorkspace(workspaces, form.get('workspace') || undefined);
    if (!chosen) return errorPage(c, 404, 'Not found', NOT_MEMBER);
    const outcome = await grantConsent(
      app.oauth,
      app.credentials,
      request,
      {
        personId: who.person.id,
        workspaceId: chosen.workspaceId,
        rights: form.all('rights'),
        toolset: form.get('toolset') || null,
      },
      nowOf(app),
    );
    if ('error' in outcome) return consentPage(who, request, workspaces, chosen, 400, outcome.error);
    return seeOther(outcome.returnTo);
  });
}
