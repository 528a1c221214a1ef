import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as NodeHttpServer,
  type ServerResponse,
} from 'node:http';
import { ConfigurationError } from './errors.js';
import type { HttpOptions } from './http.js';
import {
  checkShutdown,
  createDrain,
  type Drain,
  pause,
  type ShutdownOptions,
  type ShutdownReport,
} from './serve/drain.js';
import { mcpEndpoint } from './serve/endpoint.js';
import { HEALTH_PATHS, type HealthOptions, healthEndpoints } from './serve/health.js';
import { type NodeListener, nodeExchange, nodeListener, serveNode } from './serve/nodeBridge.js';
import {
  METADATA_HEADERS,
  type ProtectedResourceMetadata,
  protectedResourceMetadata,
} from './serve/oauthMetadata.js';
import { type OnError, type Report, reporter, reportTo } from './serve/report.js';
import { outageOf } from './serve/unavailable.js';
import type { GatehouseServer } from './server.js';

export type { ShutdownOptions, ShutdownReport } from './serve/drain.js';
export type { HealthOptions } from './serve/health.js';
export type { NodeListener } from './serve/nodeBridge.js';
export type { UnavailableOptions } from './serve/unavailable.js';

/**
 * A web-standard request handler, as Hono's `app.fetch` or a Workers `fetch`
 * export. `listen` also passes the node request, for what only the socket
 * knows (the peer's address: sign-in throttling, an authorization server).
 */
export type FetchHandler = (request: Request, incoming?: IncomingMessage) => Response | Promise<Response>;

/**
 * Serves a Gatehouse server through node:http (Express, Fastify or plain
 * `http.createServer`), with the same admission as {@link createHttpHandler}. The
 * request body streams: admission decides on the headers before any of it is
 * read, and an admitted body is read within `maxBodyBytes`. A body a parser
 * already read (`express.json()` or a Fastify content-type parser ahead of
 * the route) answers a bare 500 and tells the server's `onError` how to mount
 * the route instead: Gatehouse reads and limits the body itself. Refusals are
 * logged with the socket's address unless `clientAddress` says otherwise.
 *
 * @example
 * app.all('/mcp', createNodeListener(server)); // Express: before any body parser
 */
export function createNodeListener<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: HttpOptions = {},
): NodeListener {
  const endpoint = mcpEndpoint(server, options);
  return serveNode((req, signal) => endpoint.serve(nodeExchange(req, signal)), reporter(server, 'http'));
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
   * health checks). It never sees a request for `path`, and the MCP admission
   * (Host/Origin, bearer) does not run for it: it brings its own
   * authentication. A throw or rejection answers a bare 500 that names no
   * cause; the error goes to the server's `onError`. Without it, other paths answer 404.
   */
  readonly fetch?: FetchHandler;
  /**
   * The health endpoints, `GET /healthz` (alive: 200 `ok`) and `GET /readyz`
   * (200 when `ready` resolves within `timeoutMs`, default 2 s, and the
   * server is not draining; 503 otherwise). Always served, at fixed paths,
   * before `fetch`, without authentication.
   */
  readonly health?: HealthOptions;
  /**
   * With `oauth` (see {@link HttpOptions}), the protected-resource metadata
   * (RFC 9728) is served at `/.well-known/oauth-protected-resource` and its
   * path-suffixed forms for the resource's path and `path` (e.g.
   * `/.well-known/oauth-protected-resource/mcp`): GET and HEAD, JSON,
   * without authentication, before `fetch`; other methods 405.
   */
  readonly oauth?: HttpOptions['oauth'];
}

/** A listening server and its MCP URL. */
export interface Listening extends AsyncDisposable {
  /** The MCP endpoint; its origin (`new URL('/api', url)`) serves the `fetch` handler's paths. */
  readonly url: URL;
  readonly http: NodeHttpServer;
  /** Drops open connections and stops listening; calling it again (or disposing) is a no-op. */
  close(): Promise<void>;
  /**
   * Stops gracefully: `/readyz` answers 503 at once and requests are served
   * as before; after `drainDelayMs` (default 0) every new request, on a new
   * or a kept-alive connection, gets 503 with `Retry-After` and
   * `Connection: close` and nothing runs for it, while nothing is closed;
   * after `graceMs` more (default 1 s) the server stops listening and idle
   * connections close; every request in flight gets its full answer, and
   * after `deadlineMs` more (default 10 s) whatever is still open is cut.
   * Resolves with how many requests finished and how many were cut. Calling
   * it again returns the same promise; `close()` during it cuts at once.
   * Bad options reject with a `ConfigurationError`.
   */
  shutdown(options?: ShutdownOptions): Promise<ShutdownReport>;
}

const notFound = (_request: IncomingMessage, response: ServerResponse): void => {
  response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
};

/** Answers a metadata request on node:http when `pathname` is one of its paths; false otherwise. */
function metadataEndpoint(metadata: ProtectedResourceMetadata | undefined) {
  const body = metadata && JSON.stringify(metadata.document);
  return (req: IncomingMessage, res: ServerResponse, pathname: string): boolean => {
    if (!metadata || body === undefined || !metadata.paths.includes(pathname)) return false;
    // answered from the method alone: any method a client sends (TRACE, CONNECT, …) gets 405
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('Method Not Allowed');
      return true;
    }
    res
      .writeHead(200, {
        ...METADATA_HEADERS,
        'content-length': String(Buffer.byteLength(body)),
      })
      .end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}

const plainFailure = () =>
  new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain' } });

/** The host's handler as a node:http listener; a failure becomes a bare 500 that names no cause. */
function hostListener(fetch: FetchHandler, report: Report): NodeListener {
  return nodeListener(fetch, report, plainFailure);
}

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Hears what made a request fail with the bare 500: the handler threw or
   * rejected, or a body parser read the body before the handler could (a
   * `ConfigurationError` naming the fix). Pass the server's `onError`;
   * default: nothing is told.
   */
  readonly onError?: OnError;
}

/**
 * Serves a web-standard `fetch` handler (the console's, an authorization
 * server's, a Hono app) as a node:http listener, for Express, Fastify or
 * `http.createServer`, through the bridge {@link createNodeListener} uses:
 * the body streams as the handler reads it, under Express the whole path
 * (`originalUrl`, so a handler with a base path sees its own prefix), each
 * `Set-Cookie` a line of its own, a streamed response written with
 * backpressure, a client that goes away aborts `request.signal`; the node
 * request comes as the second argument (the peer's address). A handler
 * that throws, and a body a parser already read, answer a bare 500 that
 * names no cause; the error goes to `onError`.
 *
 * @example
 * app.use('/console', toNodeListener(console.fetch, { onError })); // Express; createConsole({ basePath: '/console' })
 */
export function toNodeListener(fetch: FetchHandler, options: NodeListenerOptions = {}): NodeListener {
  if (typeof fetch !== 'function') {
    throw new ConfigurationError('toNodeListener: fetch must be a function (request) => Response.');
  }
  const { onError } = options;
  if (onError !== undefined && typeof onError !== 'function') {
    throw new ConfigurationError('toNodeListener: onError must be a function (error, facts) => void.');
  }
  const report: Report = (error) => reportTo(onError, error, { kind: 'fault', transport: 'http' });
  return nodeListener(fetch, report, plainFailure);
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
 * endpoint at `path` behind the admission of {@link createHttpHandler}, and every
 * other path through the host's `fetch` handler when one is given (404
 * otherwise). Paths are matched exactly, before any body is read.
 * `/healthz` and `/readyz` are answered first (see `health`), then the OAuth
 * protected-resource metadata when `oauth` is given;
 * `shutdown()` stops gracefully, `close()` at once.
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
  if (HEALTH_PATHS.includes(path)) throw new ConfigurationError(`listen: path ${path} is a health endpoint.`);
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new ConfigurationError('listen: fetch must be a function (request) => Response.');
  }
  const { retryAfterSeconds } = outageOf(options.unavailable, 'listen', reporter(server, 'http'));
  const health = healthEndpoints(options.health, () => drain.isDraining());
  const metadata = options.oauth ? protectedResourceMetadata(options.oauth, path, 'listen') : undefined;
  if (metadata?.paths.includes(path))
    throw new ConfigurationError(`listen: path ${path} is the OAuth metadata endpoint.`);
  const wellKnown = metadataEndpoint(metadata);
  const mcp = createNodeListener(server, options);
  const other = options.fetch ? hostListener(options.fetch, reporter(server, 'http')) : notFound;
  const http = createHttpServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (health(req, res, pathname)) return;
    if (wellKnown(req, res, pathname)) return;
    if (drain.refused(res, pathname === path)) return;
    drain.track(res);
    void (pathname === path ? mcp : other)(req, res);
  });
  const drain = createDrain(http, retryAfterSeconds);
  const host = options.host ?? '127.0.0.1';
  await bind(http, options.port ?? 0, host);
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const hostname = host.includes(':') ? `[${host}]` : host;
  const { close, shutdown } = stopping(drain);
  return {
    url: new URL(`http://${hostname}:${port}${path}`),
    http,
    close,
    shutdown,
    [Symbol.asyncDispose]: close,
  };
}

/** `close` (immediate) and `shutdown` (graceful) of one server; each runs once. */
function stopping(drain: Drain) {
  let closing: Promise<void> | undefined;
  let shuttingDown: Promise<ShutdownReport> | undefined;
  let phase: ReturnType<typeof pause> | undefined;
  /** Waits `ms`, or not at all once `close()` was called. */
  const wait = (ms: number) => {
    phase = pause(ms);
    if (closing) phase.cancel();
    return phase.done;
  };
  const close = () =>
    (closing ??= (async () => {
      phase?.cancel();
      const stopped = drain.stop();
      drain.cutAll();
      await stopped;
    })());
  const shutdown = (options?: ShutdownOptions): Promise<ShutdownReport> => {
    if (shuttingDown) return shuttingDown;
    let checked: Required<ShutdownOptions>;
    try {
      checked = checkShutdown(options);
    } catch (error) {
      return Promise.reject(error);
    }
    shuttingDown = (async () => {
      drain.drain();
      await wait(checked.drainDelayMs);
      drain.refuse();
      await wait(checked.graceMs);
      const stopped = drain.stop();
      await drain.settle(checked.deadlineMs);
      drain.cutAll();
      await stopped;
      return drain.report();
    })();
    return shuttingDown;
  };
  return { close, shutdown };
}
