import { createServer } from 'node:http';
import { createNodeListener } from '@gatehousejs/core/node';
import { createApiHandler } from './api/index.js';
import type { BookingApp } from './app.js';

/** Where the product listens. */
export interface Serving extends AsyncDisposable {
  /** The MCP endpoint, `…/mcp`. */
  readonly mcpUrl: URL;
  /** The REST API's base, `…/api`. */
  readonly apiUrl: URL;
  close(): Promise<void>;
}

/**
 * Serves the product on one node:http server: the MCP endpoint at `/mcp`
 * (Streamable HTTP, both protocol eras, behind Gatehouse's gate: kill switch
 * 503, Host/Origin 403, MCP tokens only 401) and the REST API under `/api`.
 * Binds loopback by default.
 */
export async function serveHttp(
  app: BookingApp,
  options: { port?: number; host?: string } = {},
): Promise<Serving> {
  const mcp = createNodeListener(app.mcp, {
    onerror: (error) => app.logger.error({ event: 'mcp', error_type: error.name }, 'mcp transport error'),
  });
  const api = createApiHandler(app);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/mcp') return void mcp(request, response);
    if (path === '/api' || path.startsWith('/api/')) return void api(request, response);
    response
      .writeHead(404, { 'content-type': 'text/plain' })
      .end('Not found. The MCP endpoint is /mcp; the API is /api.');
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    }));
  return {
    mcpUrl: new URL(`${base}/mcp`),
    apiUrl: new URL(`${base}/api`),
    close,
    [Symbol.asyncDispose]: close,
  };
}
