import type { IncomingMessage } from 'node:http';
import { PROTECTED_RESOURCE_PATH, protectedResourceMetadata } from '@gatehousejs/core';
import { listen, type ShutdownOptions, type ShutdownReport } from '@gatehousejs/core/node';
import { createApiHandler } from './api/index.js';
import type { BookingApp } from './app.js';
import { createPagesHandler } from './pages/index.js';

/** Where the product listens. */
export interface Serving extends AsyncDisposable {
  /** The MCP endpoint, `…/mcp`. */
  readonly mcpUrl: URL;
  /** The REST API's base, `…/api`. */
  readonly apiUrl: URL;
  /** The operator pages' entry, `…/approvals` (sign-in at `…/signin`). */
  readonly pagesUrl: URL;
  /** Drops open connections at once. */
  close(): Promise<void>;
  /** Fails readiness, stops accepting, lets requests in flight finish (see core's `Listening.shutdown`). */
  shutdown(options?: ShutdownOptions): Promise<ShutdownReport>;
}

const NOT_FOUND = 'Not found. The MCP endpoint is /mcp; the API is /api; the pages start at /signin.';

/**
 * The host's side of the port: the REST API under `/api`, the OAuth
 * authorization server (`/oauth/…` and its discovery documents), the operator
 * pages (`/signin`, `/approvals`, `/oauth/consent/…`; `/` leads there), 404 elsewhere. Core's
 * listener passes the node request too: its socket's address throttles sign-in.
 */
function productHandler(
  app: BookingApp,
): (request: Request, incoming?: IncomingMessage) => Promise<Response> {
  const api = createApiHandler(app);
  const addresses = new WeakMap<Request, string>();
  const pages = createPagesHandler(app, { clientAddress: (request) => addresses.get(request) });
  return async (request, incoming) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/api' || pathname.startsWith('/api/')) return api(request);
    if (app.oauth.handles(pathname)) return app.oauth.fetch(request, incoming);
    if (pathname.startsWith(PROTECTED_RESOURCE_PATH)) {
      // the origin became known only at listen: the document is built now (listen serves it when configured)
      const metadata = protectedResourceMetadata(app.oauth.protectedResource(), '/mcp');
      const answer = metadata.fetch(request);
      if (answer) return answer;
    }
    if (pages.handles(pathname)) {
      const address = incoming?.socket?.remoteAddress;
      if (address !== undefined) addresses.set(request, address);
      return pages.fetch(request);
    }
    if (pathname === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
      return new Response(null, {
        status: 303,
        headers: { location: '/approvals', 'cache-control': 'no-store' },
      });
    }
    return new Response(NOT_FOUND, { status: 404, headers: { 'content-type': 'text/plain' } });
  };
}

/**
 * Serves the product on one port through core's `listen`: the MCP endpoint
 * at `/mcp` (Streamable HTTP, both protocol eras, behind Gatehouse's gate:
 * kill switch 503, Host/Origin 403, MCP tokens only 401) and the REST API
 * under `/api` with its own authentication (API tokens and sessions; MCP
 * tokens 401), and the operator pages (signed-in sessions only). Binds loopback by default. `/healthz` answers while the
 * process serves; `/readyz` only while the database answers a read through
 * the credential store (and not while shutting down).
 */
export async function serveHttp(
  app: BookingApp,
  options: { port?: number; host?: string } = {},
): Promise<Serving> {
  const served = await listen(app.mcp, {
    ...options,
    fetch: productHandler(app),
    // with a configured origin, listen serves the protected-resource metadata and names it in 401 challenges
    ...(app.publicUrl.configured ? { oauth: app.oauth.protectedResource() } : {}),
    health: { ready: () => app.credentialStore.findById('readiness-probe') },
  });
  app.publicUrl.listeningAt(served.url);
  return {
    mcpUrl: served.url,
    apiUrl: new URL('/api', served.url),
    pagesUrl: new URL('/approvals', served.url),
    close: served.close,
    shutdown: served.shutdown,
    [Symbol.asyncDispose]: served.close,
  };
}
