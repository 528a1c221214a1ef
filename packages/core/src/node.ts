import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as NodeHttpServer,
  type ServerResponse,
} from 'node:http';
import { ConfigurationError } from './errors.js';
import { createHttpHandler, type HttpOptions } from './http.js';
import { type NodeListener, nodeListener } from './serve/nodeBridge.js';
import type { GatehouseServer } from './server.js';

export type { NodeListener } from './serve/nodeBridge.js';

/** A web-standard request handler, as Hono's `app.fetch` or a Workers `fetch` export. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * Serves a Gatehouse server through node:http (Express, Fastify or plain
 * `http.createServer`), with the same gate as {@link createHttpHandler}. The
 * request body streams: the gate decides on the headers before any of it is
 * read, and an admitted body is read within `maxBodyBytes`. Refusals are
 * logged with the socket's address unless `clientAddress` says otherwise.
 */
export function createNodeListener<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: HttpOptions = {},
): NodeListener {
  const sockets = new WeakMap<Request, string>();
  const handler = createHttpHandler(server, {
    ...options,
    clientAddress: options.clientAddress ?? ((request) => sockets.get(request)),
  });
  return nodeListener((request, incoming) => {
    const address = incoming.socket?.remoteAddress;
    if (address !== undefined) sockets.set(request, address);
    return handler.fetch(request);
  }, options.onerror);
}

/** Options of {@link listen}. */
export interface ListenOptions extends HttpOptions {
  /** Port; 0 picks a free one. */
  readonly port?: number;
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  readonly host?: string;
  /** URL path of the MCP endpoint; default `/mcp`. */
  readonly path?: string;
  /**
   * The host's handler for every other path (its REST API, admin routes,
   * health checks). It never sees a request for `path`, and the MCP gate
   * (Host/Origin, bearer) does not run for it: it brings its own
   * authentication. A throw or rejection answers a bare 500 that names no
   * cause; the error goes to `onerror`. Without it, other paths answer 404.
   */
  readonly fetch?: FetchHandler;
}

/** A listening server and its MCP URL. */
export interface Listening extends AsyncDisposable {
  /** The MCP endpoint; its origin (`new URL('/api', url)`) serves the `fetch` handler's paths. */
  readonly url: URL;
  readonly http: NodeHttpServer;
  /** Drops open connections and stops listening; calling it again (or disposing) is a no-op. */
  close(): Promise<void>;
}

const notFound = (_request: IncomingMessage, response: ServerResponse): void => {
  response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
};

/** The host's handler as a node:http listener; a failure becomes a bare 500 that names no cause. */
function hostListener(fetch: FetchHandler, onerror: HttpOptions['onerror']): NodeListener {
  const failure = () =>
    new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain' } });
  return nodeListener(fetch, onerror, failure);
}

function bind(http: NodeHttpServer, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
}

/**
 * Starts node:http (loopback unless `host` says otherwise) serving the MCP
 * endpoint at `path` behind the gate of {@link createHttpHandler}, and every
 * other path through the host's `fetch` handler when one is given (404
 * otherwise). Paths are matched exactly, before any body is read.
 *
 * @example
 * await using served = await listen(server, { port: 3333, fetch: api.fetch });
 */
export async function listen<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: ListenOptions = {},
): Promise<Listening> {
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/')) throw new ConfigurationError('listen: path must start with "/".');
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new ConfigurationError('listen: fetch must be a function (request) => Response.');
  }
  const mcp = createNodeListener(server, options);
  const other = options.fetch ? hostListener(options.fetch, options.onerror) : notFound;
  const http = createHttpServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    void (pathname === path ? mcp : other)(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  await bind(http, options.port ?? 0, host);
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const hostname = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve, reject) => {
      http.close((error) => (error ? reject(error) : resolve()));
      http.closeAllConnections();
    }));
  return { url: new URL(`http://${hostname}:${port}${path}`), http, close, [Symbol.asyncDispose]: close };
}
