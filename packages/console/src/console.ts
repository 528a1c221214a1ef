import { isOutage } from '@gatehousejs/core';
import { Hono } from 'hono';
import { CONSOLE_CSS } from './internal/assets.js';
import { type ConsoleContext, type ConsoleEnv, runtimeOf } from './internal/context.js';
import { html } from './internal/html.js';
import { type Kit, kitOf } from './internal/kit.js';
import { csrfField, seeOther } from './internal/layout.js';
import {
  consoleHeaders,
  oneCookieEach,
  presession,
  readForm,
  refuseTokens,
  sameOriginPosts,
  signInStep,
} from './internal/security.js';
import type { ConsoleModule, ConsoleOptions, ConsolePage, ConsoleRequest, ConsoleRoute } from './options.js';
import { approvalRoutes } from './pages/approvals.js';
import { auditRoutes } from './pages/audit.js';
import { switchRoutes } from './pages/switches.js';
import { tokenRoutes } from './pages/tokens.js';

/** Seconds a browser waits before it asks again after a store outage. */
const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** The console as a web-standard handler. */
export interface Console {
  /** Answers a request under the console's base path (anything else: 404). */
  fetch(request: Request): Promise<Response>;
  /** Whether a request path is the console's, for a host that serves other things beside it. */
  handles(pathname: string): boolean;
}

/** The pages every console has, behind sign-in. */
const PAGES = ['/approvals', '/switches', '/tokens', '/audit'];

/** What a module's handler gets to answer with, for one request. */
function pageOf(kit: Kit, c: ConsoleContext): ConsolePage {
  return {
    html,
    render(status, parts) {
      // a one-time message from the redirect before shows on the page it leads to
      const { message, clear } = kit.takeFlash(c);
      return kit.render(c, status, { ...parts, flash: parts.flash ?? message }, clear);
    },
    error: (status, title, message) => kit.error(c, status, title, message),
    seeOther: (path, message) => kit.seeOther(c, path, message),
    redirect: (url) => seeOther(url),
    csrfField: () => csrfField(kit.csrf(c)),
    path: (path) => kit.runtime.path(path),
    time: (ms, workspaceId) => kit.time(ms, workspaceId),
    signInUrl: (returnTo) => kit.runtime.signIn.signInUrl(returnTo),
  };
}

function moduleRoute(app: Hono<ConsoleEnv>, kit: Kit, route: ConsoleRoute) {
  const who = route.public ? presession(kit) : signInStep(kit, true);
  app.on(route.method, route.path, sameOriginPosts(kit), who, readForm(kit), (c) => {
    const request: ConsoleRequest = {
      request: c.req.raw,
      url: new URL(c.req.url),
      params: c.req.param() as Record<string, string>,
      person: c.get('person'),
      form: c.get('form'),
      page: pageOf(kit, c),
    };
    return route.handler(request);
  });
}

/**
 * The person's pages of a Gatehouse server as one web-standard `fetch`
 * handler: pending approvals (I9), kill switches (I6), MCP tokens (I5) and
 * the audit log (I15), behind the product's sign-in (or the console's own,
 * `passwordSignIn`), plus the pages of `modules` (an OAuth consent screen).
 * Server-rendered HTML, no script; every response carries a strict CSP,
 * `X-Frame-Options: DENY`, `no-store` and `nosniff`; every POST is checked
 * for Origin and a CSRF token bound to the session; MCP tokens and
 * `Authorization` headers are refused with 401; a request carrying one of
 * the console's cookies twice is refused with 400; every string shown is
 * escaped and cleaned of characters that hide or reorder text (I16).
 *
 * @example
 * const console = createConsole({ origin, signIn: { personOf, signInUrl }, approvals: server.approvals, credentials, credentialStore: stores.credentials, switches, audit: stores.audit });
 * listen({ server, fetch: console.fetch });
 */
export function createConsole<TRight extends string>(given: ConsoleOptions<TRight>): Console {
  // the pages work with rights as strings; the type parameter binds the host's options together
  const options = given as unknown as ConsoleOptions;
  const runtime = runtimeOf(options);
  const modules: ConsoleModule[] = [
    ...(runtime.signIn.routes ? [runtime.signIn.routes] : []),
    ...(options.modules ?? []),
  ];
  const kit = kitOf(
    runtime,
    modules.flatMap((m) => (m.nav ? [m.nav] : [])),
  );
  const app = new Hono<ConsoleEnv>().basePath(runtime.base || '/');
  const own = ['flash', 'presession', 'page', 'return'].map((name) => runtime.cookie(name));
  app.use(
    consoleHeaders(),
    oneCookieEach(kit, own, [...(runtime.signIn.cookies ?? []), ...modules.flatMap((m) => m.cookies ?? [])]),
    refuseTokens(kit),
  );
  app.get(
    '/assets/console.css',
    () => new Response(CONSOLE_CSS, { headers: { 'content-type': 'text/css; charset=utf-8' } }),
  );
  for (const module of modules) for (const route of module.routes) moduleRoute(app, kit, route);
  // a POST from another origin is refused before anything else, signed in or not
  for (const path of PAGES) app.use(`${path}/*`, sameOriginPosts(kit), signInStep(kit, true), readForm(kit));
  app.get('/', () => seeOther(runtime.path('/approvals')));
  approvalRoutes(app, kit);
  switchRoutes(app, kit);
  tokenRoutes(app, kit);
  auditRoutes(app, kit);
  app.notFound((c) => kit.error(c, 404, 'Not found', 'There is no page here.'));
  app.onError((error, c) => {
    if (isOutage(error)) {
      runtime.logger.warn({ event: 'console', code: error.code }, 'console page met a store outage');
      return kit.error(
        c,
        503,
        'Temporarily unavailable',
        'The database did not answer; nothing was changed. Try again in a moment.',
        {
          'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS),
        },
      );
    }
    runtime.logger.error({ event: 'console', error_type: error.name }, 'console page failed');
    options.onError?.(error);
    return kit.error(
      c,
      500,
      'Something went wrong',
      'The page failed unexpectedly; nothing was shown. Try again.',
    );
  });
  const roots = new Set([
    ...PAGES.map((p) => p.slice(1)),
    'assets',
    ...modules.flatMap((m) => m.routes.map((r) => r.path.split('/')[1] ?? '')),
  ]);
  return {
    fetch: async (request) => app.fetch(request),
    handles(pathname) {
      if (runtime.base) return pathname === runtime.base || pathname.startsWith(`${runtime.base}/`);
      return roots.has(pathname.split('/')[1] ?? '');
    },
  };
}
