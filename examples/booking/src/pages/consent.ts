import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type ConsoleModule,
  type ConsolePage,
  type ConsoleRequest,
  type Html,
  html,
  type SignedIn,
} from '@gatehousejs/console';
import type { BookingApp } from '../app.js';
import type { Right } from '../domain/model.js';
import {
  type ClientProvenance,
  type ConsentRequest,
  consentRequest,
  denyConsent,
  grantConsent,
  signInFreshEnough,
} from '../oauth/consent.js';
import { GRANT_SECONDS } from '../oauth/lifetimes.js';
import { RIGHT_WORDS, TOOLSET_WORDS, TOOLSETS } from '../oauth/scopes.js';
import type { Membership } from '../services/people.js';

/** The authorization server's cookie naming the interaction this browser started (set by the provider). */
export const INTERACTION_COOKIE = '_interaction';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Compares two strings in constant time (for equal lengths). */
function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of a cookie the request carries exactly once. */
function readCookie(request: Request, name: string): string | undefined {
  const values = (request.headers.get('cookie') ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  return values.length === 1 ? values[0] : undefined;
}

/** The workspace a request names among the person's, or their home one when it names none. */
const chosenWorkspace = (workspaces: readonly Membership[], named: string | undefined) =>
  named ? workspaces.find((m) => m.workspaceId === named) : workspaces[0];

/** The rights a person can grant in a workspace: those the client asks for that their role there holds now (I4). */
const grantableIn = (request: ConsentRequest, workspace: Membership): Right[] => {
  const held = new Set<string>(workspace.rights);
  return request.rights.filter((right) => held.has(right));
};

/**
 * What the page rendered, sealed with the session: the interaction, the
 * workspace and the rights it offered there. The form posts it back, and a
 * consent whose workspace or rights differ from the page the person saw
 * (a field changed by hand, a role changed meanwhile) is shown again, not
 * granted.
 */
const renderedSeal = (
  who: SignedIn<Right>,
  uid: string,
  workspace: Membership,
  grantable: readonly Right[],
) => sha256(`consent:${who.session}:${uid}:${workspace.workspaceId}:${[...grantable].sort().join(',')}`);

const consentPath = (request: ConsentRequest) => `/oauth/consent/${encodeURIComponent(request.uid)}`;

/** How the client is known, which says how far its name can be believed. */
function provenanceText(provenance: ClientProvenance): Html {
  switch (provenance.kind) {
    case 'registered':
      return html`<p data-provenance="registered">Registered by this product’s operator under this name.</p>`;
    case 'metadata':
      return html`<p data-provenance="metadata">It names itself in a metadata document at <strong>${provenance.host}</strong>; only that host vouches for the name.</p>`;
    case 'dynamic':
      return html`<p data-provenance="dynamic" class="warning">It registered itself: the name is unverified and any program could have chosen it.</p>`;
  }
}

/** Where the browser goes with the code: the host first, in bold, then the whole address. */
function redirectText(request: ConsentRequest): Html {
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(
    URL.parse(request.redirectUri)?.hostname ?? '',
  );
  return html`<p data-redirect>After you answer, your browser goes to <strong data-redirect-host>${request.redirectHost}</strong>${loopback ? ' (a program on this computer)' : ''}: <code>${request.redirectUri}</code></p>`;
}

/**
 * The other workspaces as links: choosing one reloads the page for it, so
 * the workspace named on the page, its rights and the workspace posted with
 * Allow are always the same one (a token is for one workspace, I3).
 */
function otherWorkspaces(
  request: ConsentRequest,
  workspaces: readonly Membership[],
  chosen: Membership,
): Html {
  const others = workspaces.filter((w) => w.workspaceId !== chosen.workspaceId);
  if (others.length === 0) return html``;
  const link = (w: Membership) =>
    html`<li><a data-workspace-link="${w.workspaceId}" href="${consentPath(request)}?workspace=${encodeURIComponent(w.workspaceId)}">${w.name} (${w.role})</a></li>`;
  return html`<nav data-workspaces><p>Connect it to another of your workspaces instead (the page reloads with that workspace’s rights):</p><ul>${others.map(link)}</ul></nav>`;
}

function rightLine(right: Right, grantable: boolean, workspace: Membership): Html {
  const words = html`${RIGHT_WORDS[right]} <code>${right}</code>`;
  return grantable
    ? html`<label><input type="checkbox" name="rights" value="${right}" checked> ${words}</label>`
    : html`<p data-not-held="${right}">${words}: you do not hold this right in ${workspace.name}, so it cannot be granted.</p>`;
}

async function consentForm(
  page: ConsolePage,
  who: SignedIn<Right>,
  request: ConsentRequest,
  chosen: Membership,
  grantable: readonly Right[],
  now: number,
): Promise<Html> {
  const until = await page.time(now + GRANT_SECONDS * 1000, chosen.workspaceId);
  return html`<form data-form="consent" method="post" action="${page.path(consentPath(request))}">
  ${page.csrfField()}
  <input type="hidden" name="workspace" value="${chosen.workspaceId}">
  <input type="hidden" name="rendered" value="${renderedSeal(who, request.uid, chosen, grantable)}">
  <fieldset><legend>What it may do in ${chosen.name} (only rights you hold there now can be granted)</legend>
  ${request.rights.map((right) => rightLine(right, grantable.includes(right), chosen))}
  </fieldset>
  <label>Tools it sees <select name="toolset"><option value="">${TOOLSET_WORDS['']}</option>${TOOLSETS.map((t) => html`<option value="${t}">${TOOLSET_WORDS[t]}</option>`)}</select></label>
  <p data-duration>It stays connected until ${until} (30 days), or until you revoke it on the Tokens page. Each access token it holds lasts ten minutes, and every renewal is checked against your rights at that moment.</p>
  ${grantable.length > 0 ? html`<button type="submit" name="decision" value="grant">Allow for ${chosen.name}</button>` : html`<p data-nothing-grantable>You hold none of these rights in ${chosen.name}: nothing can be granted here.</p>`}
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`;
}

/** The consent page for one workspace, with links to the person's other workspaces. */
async function consentPage(
  r: ConsoleRequest<Right>,
  app: BookingApp,
  request: ConsentRequest,
  workspaces: readonly Membership[],
  chosen: Membership,
  status = 200,
  error?: string,
): Promise<Response> {
  const who = r.person!;
  const grantable = grantableIn(request, chosen);
  const body = html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<p data-sentence><strong data-client-name>${request.clientName}</strong> asks to act for you, ${who.name}, in the workspace <strong data-workspace>${chosen.name}</strong> through MCP.</p>
${provenanceText(request.provenance)}
<p>Client id: <code data-client-id>${request.clientId}</code></p>
${redirectText(request)}
${await consentForm(r.page, who, request, chosen, grantable, nowOf(app))}
${otherWorkspaces(request, workspaces, chosen)}`;
  return r.page.render(status, { title: 'Connect a client', body });
}

const nowOf = (app: BookingApp) => app.deps.clock().getTime();

const EXPIRED = 'This authorization request is unknown or expired. Start again from the client.';

/**
 * Whether this browser started the authorization: the provider sets the
 * `_interaction` cookie to the uid, on this page's path, when it sends the
 * browser here. A consent link opened in another browser (sent to the person
 * by someone who started the request) is refused, so nobody can collect a
 * code for a grant another person made.
 */
function startedHere(r: ConsoleRequest<Right>, uid: string): boolean {
  return readCookie(r.request, INTERACTION_COOKIE) === uid;
}

const NOT_MEMBER = 'You do not work in that workspace. Choose one of yours on the consent page.';

const ELSEWHERE =
  'This authorization request was started in another browser. Start again from the client on this device.';

const CHANGED =
  'What you may grant changed since the page was shown (your role, or the workspace). Check it again and answer.';

/** The sign-in page, returning here: the request asks for a newer sign-in than the person's (`prompt=login`, `max_age`). */
function signInAgain(r: ConsoleRequest<Right>): Response {
  return r.page.redirect(r.page.signInUrl(r.url.pathname + r.url.search));
}

/** The GET of the consent page. */
async function showConsent(app: BookingApp, r: ConsoleRequest<Right>): Promise<Response> {
  const uid = r.params.uid ?? '';
  if (!startedHere(r, uid)) return r.page.error(403, 'Started in another browser', ELSEWHERE);
  const request = await consentRequest(app.oauth, uid);
  if (!request) return r.page.error(404, 'Not found', EXPIRED);
  const who = r.person!;
  if (!signInFreshEnough(request, who.signedInAt ?? 0, nowOf(app))) return signInAgain(r);
  const workspaces = await app.people.workspacesOf(who.id);
  const chosen = chosenWorkspace(workspaces, r.url.searchParams.get('workspace') || undefined);
  if (!chosen) return r.page.error(404, 'Not found', NOT_MEMBER);
  return consentPage(r, app, request, workspaces, chosen);
}

/** The POST of the consent page: deny, or grant what the page offered. */
async function answerConsent(app: BookingApp, r: ConsoleRequest<Right>): Promise<Response> {
  const who = r.person!;
  const form = r.form!;
  const uid = r.params.uid ?? '';
  if (!startedHere(r, uid)) return r.page.error(403, 'Started in another browser', ELSEWHERE);
  const request = await consentRequest(app.oauth, uid);
  if (!request) return r.page.error(404, 'Not found', EXPIRED);
  if (form.get('decision') !== 'grant') {
    const returnTo = await denyConsent(app.oauth, uid, nowOf(app));
    return returnTo ? r.page.redirect(returnTo) : r.page.error(404, 'Not found', EXPIRED);
  }
  if (!signInFreshEnough(request, who.signedInAt ?? 0, nowOf(app))) return signInAgain(r);
  const workspaces = await app.people.workspacesOf(who.id);
  const chosen = chosenWorkspace(workspaces, form.get('workspace') || undefined);
  if (!chosen || !form.get('workspace')) return r.page.error(404, 'Not found', NOT_MEMBER);
  const grantable = grantableIn(request, chosen);
  if (!sameSecret(form.get('rendered'), renderedSeal(who, uid, chosen, grantable)))
    return consentPage(r, app, request, workspaces, chosen, 409, CHANGED);
  const posted = form.all('rights');
  const notOffered = posted.filter((right) => !(grantable as readonly string[]).includes(right));
  if (notOffered.length > 0) {
    const error = `You cannot grant ${notOffered.join(', ')} in ${chosen.name}: the page did not offer it.`;
    return consentPage(r, app, request, workspaces, chosen, 400, error);
  }
  const outcome = await grantConsent(
    app.oauth,
    app.credentials,
    request,
    {
      personId: who.id,
      signedInAt: who.signedInAt ?? 0,
      workspaceId: chosen.workspaceId,
      rights: posted,
      toolset: form.get('toolset') || null,
    },
    nowOf(app),
  );
  if ('error' in outcome) return consentPage(r, app, request, workspaces, chosen, 400, outcome.error);
  return r.page.redirect(outcome.returnTo);
}

/**
 * The consent page of the OAuth authorization server (`/oauth/consent/:uid`),
 * a console module: behind the product's sign-in, the console's Origin check
 * and CSRF token; the product's session is the only session (the provider
 * keeps none), so a person who signed out is asked to sign in, and whoever
 * is signed in now is the one who answers. A request with `prompt=login`, or
 * a sign-in older than its `max_age`, sends the person to sign in again
 * first, and back. It shows the client's name with how the client is known,
 * where the browser goes next, the workspace the token will be for (one
 * tenant, I3; links to the person's others reload the page for them) and
 * the rights asked for in words, those the person does not hold there now
 * not grantable (I4). Allowing checks the posted workspace and rights
 * against what the page rendered (sealed in the form), mints a Gatehouse
 * credential (audited, on the tokens page) that is the grant; denying
 * answers the client `access_denied`. Only the browser that started the
 * authorization may answer it (its `_interaction` cookie, which the console
 * refuses when sent twice).
 */
export function consentModule(app: BookingApp): ConsoleModule<Right> {
  return {
    name: 'oauth-consent',
    cookies: [INTERACTION_COOKIE],
    routes: [
      { method: 'GET', path: '/oauth/consent/:uid', handler: (r) => showConsent(app, r) },
      { method: 'POST', path: '/oauth/consent/:uid', handler: (r) => answerConsent(app, r) },
    ],
  };
}
