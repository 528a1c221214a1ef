import { createServer as createHttpServer, type Server as NodeHttpServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { ConfigurationError } from './errors.js';
import { createHttpHandler, type HttpOptions } from './http.js';
import type { GatehouseServer } from './server.js';

/** A node:http request listener. */
export type NodeListener = ReturnType<typeof toNodeHandler>;

/**
 * Serves a Gatehouse server through node:http (Express, Fastify or plain
 * `http.createServer`), with the same gate as {@link createHttpHandler}.
 */
export function createNodeListener<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: HttpOptions = {},
): NodeListener {
  const handler = createHttpHandler(server, options);
  return toNodeHandler(
    { fetch: (request: Request) => handler.fetch(request) },
    options.onerror ? { onerror: options.onerror } : undefined,
  );
}

/** Options of {@link listen}. */
export interface ListenOptions extends HttpOptions {
  /** Port; 0 picks a free one. */
  readonly port?: number;
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  readonly host?: string;
  /** URL path of the MCP endpoint; default `/mcp`. Other paths answer 404. */
  readonly path?: string;
}

/** A listening server and its MCP URL. */
export interface Listening extends AsyncDisposable {
  readonly url: URL;
  readonly http: NodeHttpServer;
  /** Drops open connections and stops listening; calling it again (or disposing) is a no-op. */
  close(): Promise<void>;
}

/** Starts node:http on loopback serving the MCP endpoint at `path`. */
export async function listen<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: ListenOptions = {},
): Promise<Listening> {
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/')) throw new ConfigurationError('listen: path must start with "/".');
  const listener = createNodeListener(server, options);
  const http = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    void listener(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const hostname = (options.host ?? '127.0.0.1').includes(':')
    ? `[${options.host}]`
    : (options.host ?? '127.0.0.1');
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve, reject) => {
      http.close((error) => (error ? reject(error) : resolve()));
      http.closeAllConnections();
    }));
  return { url: new URL(`http://${hostname}:${port}${path}`), http, close, [Symbol.asyncDispose]: close };
}
