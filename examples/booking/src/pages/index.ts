import { isOutage } from '@gatehousejs/core';
import { Hono } from 'hono';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../api/http.js';
import type { BookingApp } from '../app.js';
import { approvalRoutes } from './approvals.js';
import { PAGES_CSS } from './assets.js';
import { auditRoutes } from './audit.js';
import { consentRoutes } from './consent.js';
import type { PageEnv, PageOptions } from './context.js';
import { errorPage } from './layout.js';
import { oneCookieEach, pageHeaders, readForm, refuseTokens, sameOriginPosts } from './security.js';
import { requireSignIn } from './session.js';
import { signInRoutes } from './signin.js';
import { switchRoutes } from './switches.js';
import { tokenRoutes } from './tokens.js';

export type { PageOptions } from './context.js';
export { createSignInLink } from './signInLink.js';

/** The first path segments the operator pages own. */
const PAGE_ROOTS = new Set(['signin', 'signout', 'approvals', 'switches', 'tokens', 'audit', 'assets']);

/** Whether a request path belongs to the operator pages. */
export function isPagePath(pathname: string): boolean {
  return PAGE_ROOTS.has(pathname.split('/')[1] ?? '') || pathname.startsWith('/oauth/consent/');
}

/** Every page behind sign-in; Hono's `/x/*` matches `/x` too, so each request runs the steps once. */
const SIGNED_IN_PATHS = ['/approvals/*', '/switches/*', '/tokens/*', '/audit/*', '/oauth/consent/*'];

function pagesApp(app: BookingApp, options: PageOptions): Hono<PageEnv> {
  const pages = new Hono<PageEnv>();
  pages.use(pageHeaders, oneCookieEach(app), refuseTokens(app));
  pages.get(
    '/assets/pages.css',
    () => new Response(PAGES_CSS, { headers: { 'content-type': 'text/css; charset=utf-8' } }),
  );
  signInRoutes(pages, app, options);
  for (const path of SIGNED_IN_PATHS)
    pages.use(path, sameOriginPosts(app), requireSignIn(app), readForm(app));
  approvalRoutes(pages, app);
  switchRoutes(pages, app);
  tokenRoutes(pages, app);
  auditRoutes(pages, app);
  consentRoutes(pages, app);
  pages.notFound((c) => errorPage(c, 404, 'Not found', 'There is no page here.'));
  pages.onError((error, c) => {
    if (isOutage(error)) {
      app.logger.warn({ event: 'pages', code: error.code }, 'page met a database outage');
      return errorPage(
        c,
        503,
        'Temporarily unavailable',
        'The database did not answer; nothing was changed. Try again in a moment.',
        { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) },
      );
    }
    app.logger.error({ event: 'pages', error_type: error.name }, 'page failed');
    return errorPage(
      c,
      500,
      'Something went wrong',
      'The page failed unexpectedly; nothing was shown. Try again.',
    );
  });
  return pages;
}

/**
 * The booking product's operator pages as a web-standard handler: sign-in
 * (password or one-time link), approvals of person actions (I9), kill
 * switches (I6), MCP tokens (I5) and the audit log (I15). Server-rendered
 * HTML, no script; every response carries a strict CSP, `no-store` and
 * `nosniff`; every POST is checked for Origin and a CSRF token; MCP tokens
 * and `Authorization` headers are refused with 401.
 */
export function createPagesHandler(
  app: BookingApp,
  options: PageOptions = {},
): (request: Request) => Promise<Response> {
  const pages = pagesApp(app, options);
  return async (request) => pages.fetch(request);
}
