import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import type { AdmissionRefusal, Connection } from './context.js';
import { ConfigurationError } from './errors.js';
import { byteLimit, type ReadBody, readJsonBody } from './serve/body.js';
import { capErrorResponse } from './serve/echoes.js';
import { type HttpAdmissionOptions, type HttpAnswer, httpAdmission } from './serve/httpAdmission.js';
import { nativeServing } from './serve/native.js';
import { type ChallengeOptions, CONNECTION_KEY, renderRefusal } from './serve/refusal.js';
import { type RefusalLog, refusalLogOf } from './serve/refusalLog.js';
import { refuseMovedOnerror, reporter } from './serve/report.js';
import { sdkOnerror } from './serve/sdkReports.js';
import { admissionProtocolError, internalProtocolError, sdkServerWith } from './serve/sdkServer.js';
import { toolHandlers } from './serve/toolHandlers.js';
import type { GatehouseServer } from './server.js';
import { stripHidden } from './text.js';

export type { ProtectedResourceOptions } from './serve/oauthMetadata.js';
export type { ErrorFacts, OnError } from './serve/report.js';

export type { UnavailableOptions } from './serve/unavailable.js';

/** Options of {@link createHttpHandler}. */
export interface HttpOptions extends HttpAdmissionOptions {
  /** The tenant named by the transport (URL path or header), for credentials serving several tenants (I3). */
  readonly tenantFrom?: (request: Request) => string | undefined;
  /**
   * The client's address for the refusal log (e.g. from a proxy header you
   * trust). `createNodeListener` and `listen` default to the socket's address.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
  /** Serve 2025-era clients statelessly (default) or refuse them. */
  readonly legacy?: 'stateless' | 'reject';
  /**
   * Answer stateless 2026-07-28 `server/discover`, `tools/list` and
   * `tools/call` POSTs on Gatehouse's own path, the same bytes as the SDK
   * with no SDK server built per request (default `true`); `false` hands
   * every request to the SDK. Anything the native path does not fully
   * understand goes to the SDK either way.
   */
  readonly native?: boolean;
}

/** A web-standard handler: mount `fetch` on any runtime, or wrap it for node:http. */
export interface GatehouseHttpHandler {
  fetch(request: Request): Promise<Response>;
}

/** The HTTP response for an admission refusal: a JSON-RPC error body, `Retry-After` on 503, `WWW-Authenticate` on 401. */
export function refusalResponse(refusal: AdmissionRefusal, options: ChallengeOptions = {}): Response {
  const rendered = renderRefusal(refusal, options);
  return new Response(rendered.body, { status: rendered.status, headers: rendered.headers });
}

function connectionOf<TRight extends string>(authInfo: AuthInfo | undefined): Connection<TRight> {
  const connection = authInfo?.extra?.[CONNECTION_KEY];
  if (!connection) throw admissionProtocolError({ status: 401, reason: 'No authenticated connection.' });
  return connection as Connection<TRight>;
}

/** An answer admission gave itself, as a web `Response`. */
const responseOf = (answer: HttpAnswer) =>
  new Response(answer.body, { status: answer.status, headers: answer.headers });

/**
 * Serves a Gatehouse server over Streamable HTTP (SDK v2; both protocol eras).
 *
 * Before the SDK sees a request, HTTP admission (one function for every
 * HTTP transport, `httpAdmission`) runs in this order: the admission guards
 * such as the kill switch (503 + `Retry-After`), `Host` and `Origin` (403),
 * the bearer credential (401 + `WWW-Authenticate`), and the host's
 * authenticator (401/403); refusals go to `logger`, rate-limited. A store
 * behind an admission guard or the authenticator that fails or is too slow
 * answers 503 with `Retry-After` (`unavailable`). Nothing is cached between
 * requests: every request is authenticated afresh, so rights and switches
 * are live (I4, I6). Only an admitted request's body is read, within
 * `maxBodyBytes` (413 beyond it); a JSON-RPC batch is refused (400) before
 * any of its requests runs. Under OAuth, a `tools/call` of a tool listed to
 * the person but outside the access token's scopes answers 403
 * `insufficient_scope` (I7) before the SDK sees it, so the client can step
 * up. Every JSON-RPC error that leaves, the SDK's own included, repeats at
 * most 200 characters of the caller's text (a request id longer than that
 * is refused, 400); the SDK's 4xx answers are logged as the client's
 * protocol mistakes, never reported as errors. Unexpected errors go to the
 * server's `onError` (`createServer({ onError })`). An admitted stateless
 * 2026-07-28 `server/discover`, `tools/list` or `tools/call` that the
 * native path fully understands is answered without an SDK server, the
 * same bytes as the SDK's; anything else, and everything with
 * `native: false`, is the SDK's to answer.
 */
export function createHttpHandler<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: HttpOptions = {},
): GatehouseHttpHandler {
  const { fetch } = mcpEndpoint(server, options);
  return Object.freeze({ fetch });
}

/** One exchange with the MCP endpoint: a web `Request`, or a node:http request read directly. */
export interface EndpointExchange {
  readonly method: string;
  /** A header's value by its lower-case name (repeated fields joined with ", "), or null. */
  header(name: string): string | null | undefined;
  /** Reads the body within `limit` bytes: parsed JSON, or why it cannot be served (413, 400). */
  readBody(limit: number): Promise<ReadBody>;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** The peer's address when the carrier knows it: the refusal log's default client address. */
  readonly socketAddress?: string | undefined;
  /** The exchange as a web `Request` (the SDK's path, `tenantFrom`, `clientAddress`), built once, when first asked. */
  request(): Request;
}

/** The native path's answer, a JSON document sent with HTTP 200. */
export interface NativeJson {
  readonly json: string;
}

/** The MCP endpoint: for web `Request`s, and for any carrier through {@link EndpointExchange}. */
export interface McpEndpoint {
  fetch(request: Request): Promise<Response>;
  /** Never rejects: a failure answers a bare JSON-RPC internal error (500) and goes to `onError`. */
  serve(exchange: EndpointExchange): Promise<Response | NativeJson>;
}

/** The MCP endpoint behind {@link createHttpHandler} and `createNodeListener` (one admission, one native path). */
export function mcpEndpoint<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: HttpOptions = {},
): McpEndpoint {
  refuseMovedOnerror(options, 'createHttpHandler', (m) => new ConfigurationError(m));
  const report = reporter(server, 'http');
  const admitHttp = httpAdmission(server, options, 'createHttpHandler', report);
  const log = refusalLogOf(options.logger, server);
  const handlers = toolHandlers(server, report, 'http');
  const native = options.native === false ? undefined : nativeServing(server, handlers, report);
  const mcp = createMcpHandler(
    (ctx) => sdkServerWith(handlers, server, async () => connectionOf<TRight>(ctx.authInfo)),
    {
      legacy: options.legacy ?? 'stateless',
      maxRequestBodySize: byteLimit(options.maxBodyBytes, 'createHttpHandler'),
      onerror: sdkOnerror(report),
    },
  );

  const answer = async (exchange: EndpointExchange): Promise<Response | NativeJson> => {
    const clientAddress = () =>
      options.clientAddress ? options.clientAddress(exchange.request()) : exchange.socketAddress;
    const admission = await admitHttp({
      method: exchange.method,
      header: exchange.header,
      readBody: exchange.readBody,
      tenant: () => options.tenantFrom?.(exchange.request()),
      clientAddress,
    });
    if (!admission.ok) return responseOf(admission.answer);
    const { connection } = admission;
    if (native && exchange.method === 'POST') {
      const json = await native(exchange, admission.body, connection);
      if (json !== undefined) return { json };
    }
    const request = exchange.request();
    const authInfo: AuthInfo = {
      token: '[redacted]',
      clientId: connection.clientName,
      scopes: [...connection.rights],
      extra: { [CONNECTION_KEY]: connection },
    };
    // GET and DELETE are answered 405 (stateless serving): clients probe for a stream that way, no mistake
    if (request.method !== 'POST')
      return (await capErrorResponse(await mcp.fetch(request, { authInfo }))).response;
    const { response, error } = await capErrorResponse(
      await mcp.fetch(request, { authInfo, parsedBody: admission.body }),
    );
    if (error && response.status < 500) sdkMistake(log, clientAddress, response.status, error.message);
    return response;
  };

  const serve = async (exchange: EndpointExchange): Promise<Response | NativeJson> => {
    try {
      return await answer(exchange);
    } catch (error) {
      // an admission guard, tenantFrom or the authenticator threw: fail closed, name no cause
      report(error);
      const { code, message } = internalProtocolError();
      return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status: 500 });
    }
  };

  return {
    serve,
    async fetch(request) {
      const answered = await serve({
        method: request.method,
        header: (name) => request.headers.get(name),
        readBody: (limit) => readJsonBody(request, limit),
        signal: request.signal,
        request: () => request,
      });
      return answered instanceof Response ? answered : new Response(answered.json, JSON_OK);
    },
  };
}

const JSON_OK = { status: 200, headers: { 'content-type': 'application/json' } } as const;

/** An error the SDK answered with a 4xx, as a protocol mistake of the client: the capped message, hidden characters removed. */
function sdkMistake(
  log: RefusalLog,
  addressOf: () => string | undefined,
  status: number,
  message: unknown,
): void {
  let clientAddress: string | undefined;
  try {
    clientAddress = addressOf();
  } catch {
    clientAddress = undefined;
  }
  const reason = typeof message === 'string' ? stripHidden(message) : 'Refused by the MCP SDK.';
  log.refused({ refusal: { status, reason }, step: 'request', transport: 'http', clientAddress });
}
