import type { HtmlEscapedString } from 'hono/utils/html';
import type { PageContext, SignedIn } from './context.js';
import { html } from './html.js';

/** Rendered HTML (every interpolation escaped by `hono/html`). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The content type of every page. */
export const HTML_TYPE = 'text/html; charset=utf-8';

/** A time as the pages show it: ISO 8601 in UTC, to the second. */
export const utc = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '' : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** The hidden CSRF field every form carries. */
export const csrfField = (csrf: string): Html => html`<input type="hidden" name="csrf" value="${csrf}">`;

function header(who: SignedIn): Html {
  return html`<header class="top">
  <p class="who"><span data-person>${who.person.name}</span> · <span data-workspace>${who.workspaceName}</span></p>
  <nav>
    <a href="/approvals">Approvals</a>
    <a href="/switches">Switches</a>
    <a href="/tokens">Tokens</a>
    <a href="/audit">Audit</a>
  </nav>
  <form data-form="signout" method="post" action="/signout">${csrfField(who.csrf)}<button type="submit">Sign out</button></form>
</header>`;
}

/** What a page shows: its title, the signed-in person (none on sign-in and error pages), a flash message, its body. */
export interface PageParts {
  readonly title: string;
  readonly who?: SignedIn | undefined;
  readonly flash?: string | undefined;
  readonly body: Html;
}

/** The document around a page: one stylesheet, no script, no inline style (the CSP forbids both). */
export function layout(parts: PageParts): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · Booking</title>
<link rel="stylesheet" href="/assets/pages.css">
</head>
<body>
${parts.who ? header(parts.who) : ''}
<main>
<h1>${parts.title}</h1>
${parts.flash ? html`<p role="status" class="flash">${parts.flash}</p>` : ''}
${parts.body}
</main>
</body>
</html>`;
}

/** Answers with a rendered page. */
export async function render(
  status: number,
  parts: PageParts,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = (await layout(parts)).toString();
  return new Response(body, { status, headers: { 'content-type': HTML_TYPE, ...headers } });
}

/** A page saying why nothing was shown (401, 403, 404, 429), signed in or not. */
export function errorPage(
  c: PageContext,
  status: number,
  title: string,
  message: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return render(
    status,
    { title, who: c.get('signedIn'), body: html`<p class="error">${message}</p>` },
    headers,
  );
}

/** A 303 to a same-origin path, with a small HTML body for clients that show it. */
export function seeOther(location: string, cookies: readonly string[] = []): Response {
  const headers = new Headers({ location, 'content-type': HTML_TYPE });
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  const href = encodeURI(location).replace(/"/g, '%22');
  return new Response(`<!doctype html><p>See <a href="${href}">${href}</a>.</p>`, { status: 303, headers });
}
