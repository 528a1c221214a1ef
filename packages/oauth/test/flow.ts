/**
 * An MCP client's side of the authorization, done by hand over HTTP: PKCE,
 * the authorization request, the person's consent in their browser, the
 * token endpoint, and a 2026-07-28 `tools/call` with the access token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { FormBrowser, hiddenFieldsIn, RawHttpClient } from '@gatehousejs/testing';
import { expect } from 'vitest';

/** The pre-registered client every test uses: a native app on a loopback redirect. */
export const CLIENT = { id: 'desk-app', name: 'Desk App', redirectUris: ['http://127.0.0.1/callback'] };
export const OPERATOR = { actorId: 'ops', channel: 'cli' };

/** A fresh PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Sends requests for `origin` to `address` (a replica), keeping the path: a load balancer's choice. */
export const via =
  (address: string) =>
  (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    return fetch(new URL(`${url.pathname}${url.search}`, address), {
      method: request.method,
      headers: request.headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
      redirect: 'manual',
      duplex: 'half',
    } as RequestInit);
  };

/** Where a redirect points, resolved against `origin`. */
export const locationOf = (origin: string, headers: Headers): URL =>
  new URL(headers.get('location') ?? '', origin);

export interface Authorization {
  readonly code: string;
  readonly verifier: string;
  readonly state: string;
  readonly iss: string | null;
}

/** The authorization request's query for `resource`, asking `scope`. */
export function authorizeQuery(resource: string, challenge: string, scope = 'tickets.read offline_access') {
  const state = randomBytes(8).toString('hex');
  const query = new URLSearchParams({
    client_id: CLIENT.id,
    redirect_uri: CLIENT.redirectUris[0] ?? '',
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope,
    resource,
    state,
    prompt: 'consent',
  });
  return { path: `/oauth/authorize?${query}`, state };
}

/** Starts an authorization in `browser`; the consent page's path it was sent to. */
export async function startAuthorization(browser: FormBrowser, path: string): Promise<string> {
  const start = await browser.get(path);
  expect(start.status, start.text).toBe(303);
  const consent = locationOf(browser.origin, start.headers);
  expect(consent.pathname).toMatch(/^\/oauth\/consent\//);
  return consent.pathname;
}

/**
 * The person answers the consent page at `consentPath` (grant `rights` in
 * `workspace`, or deny), and the browser follows the provider's redirects
 * to the client's redirect URI; that URI.
 */
export async function answerConsent(
  browser: FormBrowser,
  consentPath: string,
  answer: { decision: 'grant' | 'deny'; rights?: readonly string[]; workspace?: string },
): Promise<URL> {
  const page = await browser.get(
    answer.workspace ? `${consentPath}?workspace=${answer.workspace}` : consentPath,
  );
  expect(page.status, page.text).toBe(200);
  const hidden = hiddenFieldsIn(page.text);
  const posted = await browser.post(consentPath, {
    workspace: hidden.workspace ?? '',
    rendered: hidden.rendered ?? '',
    decision: answer.decision,
    rights: answer.rights ?? [],
  });
  expect(posted.status, posted.text).toBe(303);
  let next = locationOf(browser.origin, posted.headers);
  for (let hop = 0; hop < 5 && next.origin === new URL(browser.origin).origin; hop++) {
    const followed = await browser.get(`${next.pathname}${next.search}`);
    expect(followed.status, followed.text).toBe(303);
    next = locationOf(browser.origin, followed.headers);
  }
  return next;
}

/** Authorizes the client through consent: the code and its verifier. */
export async function authorize(
  browser: FormBrowser,
  resource: string,
  answer: { rights: readonly string[]; workspace?: string; scope?: string },
): Promise<Authorization> {
  const { verifier, challenge } = pkce();
  const { path, state } = authorizeQuery(resource, challenge, answer.scope);
  const consentPath = await startAuthorization(browser, path);
  const back = await answerConsent(browser, consentPath, { decision: 'grant', ...answer });
  expect(back.origin + back.pathname).toBe(CLIENT.redirectUris[0]);
  expect(back.searchParams.get('state')).toBe(state);
  const code = back.searchParams.get('code');
  expect(code, back.href).toBeTruthy();
  return { code: code ?? '', verifier, state, iss: back.searchParams.get('iss') };
}

/** A token endpoint request; its status and JSON body. */
export async function tokenRequest(
  address: string,
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL('/oauth/token', address), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: CLIENT.id, ...fields }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Redeems a code at `address` for the resource: the token response. */
export function redeem(address: string, resource: string, authorization: Authorization) {
  return tokenRequest(address, {
    grant_type: 'authorization_code',
    code: authorization.code,
    redirect_uri: CLIENT.redirectUris[0] ?? '',
    code_verifier: authorization.verifier,
    resource,
  });
}

/** Refreshes at `address`. */
export function refresh(address: string, resource: string, refreshToken: string) {
  return tokenRequest(address, { grant_type: 'refresh_token', refresh_token: refreshToken, resource });
}

/** A 2026-07-28 `tools/call` of `name` at `address` with a bearer token, through the raw client: its reply. */
export async function callTool(address: string, token: string, name: string) {
  await using client = new RawHttpClient({
    url: new URL('/mcp', address),
    era: '2026-07-28',
    headers: { authorization: `Bearer ${token}` },
  });
  return client.callTool(name, {});
}

/** `list_tickets` at `address` with a bearer token: the status, and the tickets when it answered them. */
export async function listTickets(address: string, token: string) {
  const reply = await callTool(address, token, 'list_tickets');
  const result = reply.messages[0] as
    | { result?: { structuredContent?: { result?: { tickets?: string[] } } } }
    | undefined;
  return {
    status: reply.status,
    tickets: result?.result?.structuredContent?.result?.tickets,
    text: reply.text,
  };
}

/** A browser on `origin` with the person's session cookie, sending through `handler` (a replica) when given. */
export function browserOf(
  origin: string,
  session: string,
  handler?: (request: Request) => Promise<Response>,
) {
  const browser = new FormBrowser(origin, handler);
  browser.jar.set('desk_session', session);
  return browser;
}
