import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type ConsoleModule,
  type ConsolePage,
  type ConsoleRequest,
  type ConsoleWorkspace,
  type Html,
  html,
  type SignedIn,
} from '@gatehousejs/console';
import {
  type ClientProvenance,
  type ConsentRequest,
  consentRequest,
  denyConsent,
  grantConsent,
  signInFreshEnough,
} from './consent.js';
import { type AuthorizationServer, internalsOf } from './server.js';

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

type Workspace = ConsoleWorkspace<string>;

/** The workspace a request names among the person's, or their home one when it names none. */
const chosenWorkspace = (workspaces: readonly Workspace[], named: string | undefined) =>
  named ? workspaces.find((w) => w.id === named) : workspaces[0];

/** The rights a person can grant in a workspace: those the client asks for that they hold there now (I4). */
const grantableIn = (request: ConsentRequest, workspace: Workspace): string[] => {
  const held = new Set<string>(workspace.rights);
  return request.rights.filter((right) => held.has(right));
};

/** Seconds as a reader says them: `30 days`, `an hour`, `10 minutes`. */
function spoken(seconds: number): string {
  const unit = (count: number, one: string, many: string) => (count === 1 ? one : `${count} ${many}`);
  if (seconds % 86_400 === 0) return unit(seconds / 86_400, 'a day', 'days');
  if (seconds % 3_600 === 0) return unit(seconds / 3_600, 'an hour', 'hours');
  if (seconds % 60 === 0) return unit(seconds / 60, 'a minute', 'minutes');
  return unit(seconds, 'a second', 'seconds');
}

/**
 * What the page rendered, sealed with the session: the interaction, the
 * workspace and the rights it offered there. The form posts it back, and a
 * consent whose workspace or rights differ from the page the person saw
 * (a field changed by hand, a role changed meanwhile) is shown again, not
 * granted.
 */
const renderedSeal = (
  who: SignedIn<string>,
  uid: string,
  workspace: Workspace,
  grantable: readonly string[],
) => sha256(`consent:${who.session}:${uid}:${workspace.id}:${[...grantable].sort().join(',')}`);

/** The consent page's path inside the console (the console adds its base path). */
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
  page: ConsolePage,
  request: ConsentRequest,
  workspaces: readonly Workspace[],
  chosen: Workspace,
): Html {
  const others = workspaces.filter((w) => w.id !== chosen.id);
  if (others.length === 0) return html``;
  const role = (w: Workspace) => w.role ?? (w.owner ? 'owner' : undefined);
  const link = (w: Workspace) =>
    html`<li><a data-workspace-link="${w.id}" href="${page.path(consentPath(request))}?workspace=${encodeURIComponent(w.id)}">${w.name}${role(w) ? ` (${role(w)})` : ''}</a></li>`;
  return html`<nav data-workspaces><p>Connect it to another of your workspaces instead (the page reloads with that workspace’s rights):</p><ul>${others.map(link)}</ul></nav>`;
}

function rightLine(words: string, right: string, grantable: boolean, workspace: Workspace): Html {
  const shown = html`${words} <code>${right}</code>`;
  return grantable
    ? html`<label><input type="checkbox" name="rights" value="${right}" checked> ${shown}</label>`
    : html`<p data-not-held="${right}">${shown}: you do not hold this right in ${workspace.name}, so it cannot be granted.</p>`;
}

async function consentForm(
  server: AuthorizationServer<string>,
  page: ConsolePage,
  who: SignedIn<string>,
  request: ConsentRequest,
  chosen: Workspace,
  grantable: readonly string[],
  now: number,
): Promise<Html> {
  const { grantSeconds, accessTokenSeconds } = server.lifetimes;
  const { words, toolsets = {} } = server.scopes as AuthorizationServer<string>['scopes'];
  const until = await page.time(now + grantSeconds * 1000, chosen.id);
  const toolsetOption = ([name, text]: [string, string]) => html`<option value="${name}">${text}</option>`;
  return html`<form data-form="consent" method="post" action="${page.path(consentPath(request))}">
  ${page.csrfField()}
  <input type="hidden" name="workspace" value="${chosen.id}">
  <input type="hidden" name="rendered" value="${renderedSeal(who, request.uid, chosen, grantable)}">
  <fieldset><legend>What it may do in ${chosen.name} (only rights you hold there now can be granted)</legend>
  ${request.rights.map((right) => rightLine(words[right] ?? right, right, grantable.includes(right), chosen))}
  </fieldset>
  ${Object.keys(toolsets).length > 0 ? html`<label>Tools it sees <select name="toolset"><option value="">${ALL_TOOLS}</option>${Object.entries(toolsets).map(toolsetOption)}</select></label>` : ''}
  <p data-duration>It stays connected until ${until}, or until you revoke it on the Tokens page. Each access token it holds lasts ${spoken(accessTokenSeconds)}, and every renewal is checked against your rights at that moment.</p>
  ${grantable.length > 0 ? html`<button type="submit" name="decision" value="grant">Allow for ${chosen.name}</button>` : html`<p data-nothing-grantable>You hold none of these rights in ${chosen.name}: nothing can be granted here.</p>`}
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`;
}

/** What the toolset list offers first: no toolset. */
const ALL_TOOLS = 'All tools its rights allow';

/** The consent page for one workspace, with links to the person's other workspaces. */
async function consentPage(
  server: AuthorizationServer<string>,
  r: ConsoleRequest<string>,
  request: ConsentRequest,
  chosen: Workspace,
  status = 200,
  error?: string,
): Promise<Response> {
  const who = r.person!;
  const workspaces = who.workspaces;
  const grantable = grantableIn(request, chosen);
  const body = html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<p data-sentence><strong data-client-name>${request.clientName}</strong> asks to act for you, ${who.name}, in the workspace <strong data-workspace>${chosen.name}</strong> through MCP.</p>
${provenanceText(request.provenance)}
<p>Client id: <code data-client-id>${request.clientId}</code></p>
${redirectText(request)}
${await consentForm(server, r.page, who, request, chosen, grantable, nowOf(server))}
${otherWorkspaces(r.page, request, workspaces, chosen)}`;
  return r.page.render(status, { title: 'Connect a client', body });
}

const nowOf = (server: AuthorizationServer<string>) => internalsOf(server).clock().getTime();

const EXPIRED = 'This authorization request is unknown or expired. Start again from the client.';

/**
 * Whether this browser started the authorization: the provider sets the
 * `_interaction` cookie to the uid, on this page's path, when it sends the
 * browser here. A consent link opened in another browser (sent to the person
 * by someone who started the request) is refused, so nobody can collect a
 * code for a grant another person made.
 */
function startedHere(r: ConsoleRequest<string>, uid: string): boolean {
  return readCookie(r.request, INTERACTION_COOKIE) === uid;
}

const NOT_MEMBER = 'You do not work in that workspace. Choose one of yours on the consent page.';

const ELSEWHERE =
  'This authorization request was started in another browser. Start again from the client on this device.';

const CHANGED =
  'What you may grant changed since the page was shown (your role, or the workspace). Check it again and answer.';

/** The sign-in page, returning here: the request asks for a newer sign-in than the person's (`prompt=login`, `max_age`). */
function signInAgain(r: ConsoleRequest<string>): Response {
  return r.page.redirect(r.page.signInUrl(r.url.pathname + r.url.search));
}

/** The GET of the consent page. */
async function showConsent(
  server: AuthorizationServer<string>,
  r: ConsoleRequest<string>,
): Promise<Response> {
  const uid = r.params.uid ?? '';
  if (!startedHere(r, uid)) return r.page.error(403, 'Started in another browser', ELSEWHERE);
  const request = await consentRequest(server, uid);
  if (!request) return r.page.error(404, 'Not found', EXPIRED);
  const who = r.person!;
  if (!signInFreshEnough(request, who.signedInAt ?? 0, nowOf(server))) return signInAgain(r);
  const chosen = chosenWorkspace(who.workspaces, r.url.searchParams.get('workspace') || undefined);
  if (!chosen) return r.page.error(404, 'Not found', NOT_MEMBER);
  return consentPage(server, r, request, chosen);
}

/** The POST of the consent page: deny, or grant what the page offered. */
async function answerConsent(
  server: AuthorizationServer<string>,
  r: ConsoleRequest<string>,
): Promise<Response> {
  const who = r.person!;
  const form = r.form!;
  const uid = r.params.uid ?? '';
  if (!startedHere(r, uid)) return r.page.error(403, 'Started in another browser', ELSEWHERE);
  const request = await consentRequest(server, uid);
  if (!request) return r.page.error(404, 'Not found', EXPIRED);
  if (form.get('decision') !== 'grant') {
    const returnTo = await denyConsent(server, uid, nowOf(server));
    return returnTo ? r.page.redirect(returnTo) : r.page.error(404, 'Not found', EXPIRED);
  }
  if (!signInFreshEnough(request, who.signedInAt ?? 0, nowOf(server))) return signInAgain(r);
  const chosen = chosenWorkspace(who.workspaces, form.get('workspace') || undefined);
  if (!chosen || !form.get('workspace')) return r.page.error(404, 'Not found', NOT_MEMBER);
  const grantable = grantableIn(request, chosen);
  if (!sameSecret(form.get('rendered'), renderedSeal(who, uid, chosen, grantable)))
    return consentPage(server, r, request, chosen, 409, CHANGED);
  const posted = form.all('rights');
  const notOffered = posted.filter((right) => !grantable.includes(right));
  if (notOffered.length > 0) {
    const error = `You cannot grant ${notOffered.join(', ')} in ${chosen.name}: the page did not offer it.`;
    return consentPage(server, r, request, chosen, 400, error);
  }
  const outcome = await grantConsent(
    server,
    internalsOf(server).credentials,
    request,
    {
      personId: who.id,
      signedInAt: who.signedInAt ?? 0,
      workspaceId: chosen.id,
      rights: posted,
      toolset: form.get('toolset') || null,
    },
    nowOf(server),
  );
  if ('error' in outcome) return consentPage(server, r, request, chosen, 400, outcome.error);
  return r.page.redirect(outcome.returnTo);
}

/**
 * The consent page of the authorization server (`/oauth/consent/:uid` under
 * the console's base path, which the server's `consoleBasePath` names), a
 * console module for `createConsole({ modules })`: behind the product's sign-in, the console's Origin check
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
export function consentPages<TRight extends string>(
  server: AuthorizationServer<TRight>,
): ConsoleModule<TRight> {
  const any = server as AuthorizationServer<string>;
  const show = (r: ConsoleRequest<TRight>) => showConsent(any, r as ConsoleRequest<string>);
  const answer = (r: ConsoleRequest<TRight>) => answerConsent(any, r as ConsoleRequest<string>);
  return {
    name: 'oauth-consent',
    cookies: [INTERACTION_COOKIE],
    routes: [
      { method: 'GET', path: '/oauth/consent/:uid', handler: show },
      { method: 'POST', path: '/oauth/consent/:uid', handler: answer },
    ],
  };
}
