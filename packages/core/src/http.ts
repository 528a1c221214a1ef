import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import type { AdmissionRefusal, Connection } from './context.js';
import { ConfigurationError } from './errors.js';
import { byteLimit, readJsonBody } from './serve/body.js';
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
  const sdkAnswer = async (request: Request, answer: Promise<Response>): Promise<Response> => {
    const { response, error } = await capErrorResponse(await answer);
    if (error && response.status < 500) sdkMistake(log, request, response.status, error.message, options);
    return response;
  };

  const serve = async (request: Request): Promise<Response> => {
    const admission = await admitHttp({
      method: request.method,
      header: (name) => request.headers.get(name),
      readBody: (limit) => readJsonBody(request, limit),
      tenant: () => options.tenantFrom?.(request),
      clientAddress: () => options.clientAddress?.(request),
    });
    if (!admission.ok) return responseOf(admission.answer);
    const { connection } = admission;
    if (native && request.method === 'POST') {
      const answered = await native(
        { header: (name) => request.headers.get(name), signal: request.signal },
        admission.body,
        connection,
      );
      if (answered) return answered;
    }
    const authInfo: AuthInfo = {
      token: '[redacted]',
      clientId: connection.clientName,
      scopes: [...connection.rights],
      extra: { [CONNECTION_KEY]: connection },
    };
    // GET and DELETE are answered 405 (stateless serving): clients probe for a stream that way, no mistake
    if (request.method !== 'POST')
      return (await capErrorResponse(await mcp.fetch(request, { authInfo }))).response;
    return sdkAnswer(request, mcp.fetch(request, { authInfo, parsedBody: admission.body }));
  };

  return Object.freeze({
    async fetch(request: Request): Promise<Response> {
      try {
        return await serve(request);
      } catch (error) {
        // an admission guard, tenantFrom or the authenticator threw: fail closed, name no cause
        report(error);
        const { code, message } = internalProtocolError();
        return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status: 500 });
      }
    },
  });
}

/** An error the SDK answered with a 4xx, as a protocol mistake of the client: the capped message, hidden characters removed. */
function sdkMistake(
  log: RefusalLog,
  request: Request,
  status: number,
  message: unknown,
  options: HttpOptions,
): void {
  let clientAddress: string | undefined;
  try {
    clientAddress = options.clientAddress?.(request);
  } catch {
    clientAddress = undefined;
  }
  const reason = typeof message === 'string' ? stripHidden(message) : 'Refused by the MCP SDK.';
  log.refused({ refusal: { status, reason }, step: 'request', transport: 'http', clientAddress });
}
