import type { Html, SignedIn } from '../options.js';
import type { Runtime } from './context.js';
import { html } from './html.js';

/** The content type of every page. */
export const HTML_TYPE = 'text/html; charset=utf-8';

/** The hidden CSRF field every form carries. */
export const csrfField = (csrf: string): Html => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** A link of the navigation. */
export interface NavLink {
  readonly label: string;
  readonly path: string;
}

/** The pages a person sees in the navigation: owners and the operator see switches and the audit log. */
export function navFor(runtime: Runtime, who: SignedIn, extra: readonly NavLink[]): NavLink[] {
  const owns = who.workspaces.some((w) => w.owner);
  return [
    { label: 'Approvals', path: '/approvals' },
    ...(owns || who.operator ? [{ label: 'Switches', path: '/switches' }] : []),
    { label: 'Tokens', path: '/tokens' },
    ...(owns ? [{ label: 'Audit log', path: '/audit' }] : []),
    ...extra,
  ].map((link) => ({ ...link, path: runtime.path(link.path) }));
}

function header(runtime: Runtime, who: SignedIn, nav: readonly NavLink[], current: string): Html {
  const signOut = runtime.signIn.signOutPath;
  return html`<header class="top">
  <p class="brand">${runtime.logoUrl ? html`<img src="${runtime.logoUrl}" alt="" height="24">` : ''}<span>${runtime.productName}</span></p>
  <nav aria-label="Console">
    ${nav.map((link) => html`<a href="${link.path}"${current.startsWith(link.path) ? html` aria-current="page"` : ''}>${link.label}</a>`)}
  </nav>
  <p class="who"><span data-person>${who.name}</span> · <span data-workspace>${who.home.name}</span></p>
  ${signOut ? html`<form data-form="signout" method="post" action="${runtime.path(signOut)}">${csrfField(who.csrf)}<button type="submit">Sign out</button></form>` : ''}
</header>`;
}

/** What a page shows: its title, the signed-in person (none on sign-in and error pages), a message, its body. */
export interface PageParts {
  readonly title: string;
  readonly who?: SignedIn | undefined;
  readonly nav?: readonly NavLink[] | undefined;
  /** The request path, to mark the current page in the navigation. */
  readonly current?: string | undefined;
  readonly flash?: string | undefined;
  readonly body: Html;
}

/** The document around a page: one stylesheet, no script, no inline style (the CSP forbids both). */
export function layout(runtime: Runtime, parts: PageParts): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · ${runtime.productName}</title>
<link rel="stylesheet" href="${runtime.path('/assets/console.css')}">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${parts.who ? header(runtime, parts.who, parts.nav ?? [], parts.current ?? '') : html`<header class="top"><p class="brand">${runtime.logoUrl ? html`<img src="${runtime.logoUrl}" alt="" height="24">` : ''}<span>${runtime.productName}</span></p></header>`}
<main id="main">
<h1>${parts.title}</h1>
${parts.flash ? html`<p role="status" class="flash">${parts.flash}</p>` : ''}
${parts.body}
</main>
</body>
</html>`;
}

/** Answers with a rendered page. */
export async function render(
  runtime: Runtime,
  status: number,
  parts: PageParts,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = (await layout(runtime, parts)).toString();
  return new Response(body, { status, headers: { 'content-type': HTML_TYPE, ...headers } });
}

/** A 303 to a path or URL, with a small HTML body for clients that show it. */
export function seeOther(location: string, cookies: readonly string[] = []): Response {
  const headers = new Headers({ location, 'content-type': HTML_TYPE });
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  const href = encodeURI(location).replace(/"/g, '%22');
  return new Response(`<!doctype html><p>See <a href="${href}">${href}</a>.</p>`, { status: 303, headers });
}
