import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { BookingApp } from '../app.js';
import { type ConsentRequest, consentRequest, denyConsent, grantConsent } from '../oauth/consent.js';
import { TOOLSETS } from '../oauth/scopes.js';
import { formOf, nowOf, type PageEnv, type SignedIn, signedIn } from './context.js';
import { csrfField, errorPage, type Html, render, seeOther } from './layout.js';

function consentForm(who: SignedIn, request: ConsentRequest): Html {
  const held = new Set<string>(who.rights);
  const action = `/oauth/consent/${encodeURIComponent(request.uid)}`;
  return html`<p>The client <strong data-client-name>${request.clientName}</strong> (<code data-client-id>${request.clientId}</code>) asks to act for you in the workspace <strong data-workspace>${who.workspaceName}</strong> through MCP. It will return to <code>${request.redirectUri}</code>.</p>
<form data-form="consent" method="post" action="${action}">
  ${csrfField(who.csrf)}
  <fieldset><legend>Rights it asks for (you can grant only rights you hold now)</legend>
  ${request.rights.map((right) =>
    held.has(right)
      ? html`<label><input type="checkbox" name="rights" value="${right}" checked> ${right}</label>`
      : html`<p data-not-held="${right}">${right}: you do not hold this right, so it cannot be granted.</p>`,
  )}
  </fieldset>
  <label>Toolset <select name="toolset"><option value="">all tools</option>${TOOLSETS.map((t) => html`<option value="${t}">${t}</option>`)}</select></label>
  <p>${request.offline ? 'It may stay connected (refresh tokens) until you revoke it on the Tokens page.' : 'Its access ends within ten minutes unless it asks again.'}</p>
  <button type="submit" name="decision" value="grant">Allow</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`;
}

async function consentPage(who: SignedIn, request: ConsentRequest, status = 200, error?: string) {
  const body = html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}${consentForm(who, request)}`;
  return render(status, { title: 'Connect a client', who, body });
}

const EXPIRED = 'This authorization request is unknown or expired. Start again from the client.';

/**
 * The consent page of the OAuth authorization server (`/oauth/consent/:uid`),
 * behind the product's own sign-in, Origin check and CSRF token: it shows the
 * client, the workspace (the person's one tenant, I3) and the rights asked for,
 * those the person does not hold now not grantable (I4). Allowing mints a
 * Gatehouse credential (audited, on the tokens page) that is the grant;
 * denying answers the client `access_denied`.
 */
export function consentRoutes(pages: Hono<PageEnv>, app: BookingApp): void {
  pages.get('/oauth/consent/:uid', async (c) => {
    const request = await consentRequest(app.oauth, c.req.param('uid'));
    if (!request) return errorPage(c, 404, 'Not found', EXPIRED);
    return consentPage(signedIn(c), request);
  });
  pages.post('/oauth/consent/:uid', async (c) => {
    const who = signedIn(c);
    const form = formOf(c);
    const uid = c.req.param('uid');
    const request = await consentRequest(app.oauth, uid);
    if (!request) return errorPage(c, 404, 'Not found', EXPIRED);
    if (form.get('decision') !== 'grant') {
      const returnTo = await denyConsent(app.oauth, uid, nowOf(app));
      return returnTo ? seeOther(returnTo) : errorPage(c, 404, 'Not found', EXPIRED);
    }
    const outcome = await grantConsent(
      app.oauth,
      app.credentials,
      request,
      {
        personId: who.person.id,
        workspaceId: who.person.workspaceId,
        rights: form.all('rights'),
        toolset: form.get('toolset') || null,
      },
      nowOf(app),
    );
    if ('error' in outcome) return consentPage(who, request, 400, outcome.error);
    return seeOther(outcome.returnTo);
  });
}
