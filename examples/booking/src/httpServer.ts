import { listen, type ShutdownOptions, type ShutdownReport } from '@gatehousejs/core/node';
import { createApiHandler } from './api/index.js';
import type { BookingApp } from './app.js';

/** Where the product listens. */
export interface Serving extends AsyncDisposable {
  /** The MCP endpoint, `…/mcp`. */
  readonly mcpUrl: URL;
  /** The REST API's base, `…/api`. */
  readonly apiUrl: URL;
  /** Drops open connections at once. */
  close(): Promise<void>;
  /** Fails readiness, stops accepting, lets requests in flight finish (see core's `Listening.shutdown`). */
  shutdown(options?: ShutdownOptions): Promise<ShutdownReport>;
}

const NOT_FOUND = 'Not found. The MCP endpoint is /mcp; the API is /api.';

/** The host's side of the port: the REST API under `/api`, 404 elsewhere. */
function productHandler(app: BookingApp): (request: Request) => Promise<Response> {
  const api = createApiHandler(app);
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/api' || pathname.startsWith('/api/')) return api(request);
    return new Response(NOT_FOUND, { status: 404, headers: { 'content-type': 'text/plain' } });
  };
}

/**
 * Serves the product on one port through core's `listen`: the MCP endpoint
 * at `/mcp` (Streamable HTTP, both protocol eras, behind Gatehouse's gate:
 * kill switch 503, Host/Origin 403, MCP tokens only 401) and the REST API
 * under `/api` with its own authentication (API tokens and sessions; MCP
 * tokens 401). Binds loopback by default. `/healthz` answers while the
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
    health: { ready: () => app.credentialStore.findById('readiness-probe') },
    onerror: (error) => app.logger.error({ event: 'http', error_type: error.name }, 'http transport error'),
  });
  app.publicUrl.listeningAt(served.url);
  return {
    mcpUrl: served.url,
    apiUrl: new URL('/api', served.url),
    close: served.close,
    shutdown: served.shutdown,
    [Symbol.asyncDispose]: served.close,
  };
}
