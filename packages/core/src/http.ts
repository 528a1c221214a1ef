import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import type { Connection, GateRefusal } from './context.js';
import { ConfigurationError } from './errors.js';
import type { Logger } from './logging.js';
import { admit } from './serve/admission.js';
import { byteLimit, readJsonBody, screenMessage } from './serve/body.js';
import { capErrorResponse } from './serve/echoes.js';
import { LOCAL_HOSTNAMES } from './serve/hostOrigin.js';
import { challengeOptions, type ProtectedResourceOptions } from './serve/oauthMetadata.js';
import { type ChallengeOptions, CONNECTION_KEY, renderRefusal } from './serve/refusal.js';
import { type RefusalLog, refusalLogOf } from './serve/refusalLog.js';
import type { OnError } from './serve/report.js';
import { sdkOnerror } from './serve/sdkReports.js';
import { gateProtocolError, internalProtocolError, reportTo, sdkServer } from './serve/sdkServer.js';
import { stepUpRefusal } from './serve/stepUp.js';
import { outageOf, type UnavailableOptions } from './serve/unavailable.js';
import type { GatehouseServer } from './server.js';
import { stripHidden } from './text.js';

export type { ProtectedResourceOptions } from './serve/oauthMetadata.js';
export type { ErrorReport, OnError } from './serve/report.js';

export type { UnavailableOptions } from './serve/unavailable.js';

/** Options of {@link createHttpHandler}. */
export interface HttpOptions {
  /** Allowed `Host` hostnames (DNS-rebinding defence, 403 otherwise). Default: localhost names. */
  readonly allowedHosts?: readonly string[];
  /** Allowed `Origin` hostnames (403 otherwise). A request without `Origin` passes. Default: localhost names. */
  readonly allowedOrigins?: readonly string[];
  /** The tenant named by the transport (URL path or header), for credentials serving several tenants (I3). */
  readonly tenantFrom?: (request: Request) => string | undefined;
  /** `resource_metadata` URL advertised in `WWW-Authenticate` (OAuth discovery); default the one `oauth` derives. */
  readonly resourceMetadataUrl?: string;
  /**
   * This server as an OAuth protected resource (RFC 9728). The 401 challenge
   * names its metadata URL (`resource_metadata`, the resource's path-suffixed
   * `/.well-known/oauth-protected-resource…`) and `scopesSupported` (`scope`).
   * `listen` serves the metadata document; with `createHttpHandler`, mount
   * `protectedResourceMetadata(oauth).fetch`. Checked up front.
   */
  readonly oauth?: ProtectedResourceOptions;
  /**
   * Most bytes of a POST body; a larger one is answered 413 before anything is parsed.
   * Default 1 MiB. The body is read only after the request is admitted.
   */
  readonly maxBodyBytes?: number;
  /**
   * Where gate refusals (401, 403, 503) and a client's protocol mistakes
   * (including those the SDK answers itself: headers that disagree with the
   * body, an unsupported protocol version, …) are logged, at info or warn:
   * reason, transport and client address, never token material; at most one
   * line per client address and reason a minute, then one "N suppressed"
   * line. Default: the server's `logger`.
   */
  readonly logger?: Logger;
  /**
   * The client's address for the refusal log (e.g. from a proxy header you
   * trust). `createNodeListener` and `listen` default to the socket's address.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
  /**
   * When a store admission reads (the kill switch's switch store, the
   * credential store behind the authenticator) fails or answers slower than
   * `timeoutMs` (default 5 s): every request answers HTTP 503 with a JSON-RPC error
   * naming no cause, with `Retry-After` of `retryAfterSeconds` (default 5);
   * the error goes to `onerror`, one line per window to the refusal log.
   */
  readonly unavailable?: UnavailableOptions;
  /** Serve 2025-era clients statelessly (default) or refuse them. */
  readonly legacy?: 'stateless' | 'reject';
  /**
   * Receives unexpected errors (reporting only): out-of-band SDK errors, a
   * `tenantFrom` or visibility rule that throws (the client gets a bare 500 /
   * JSON-RPC internal error that names no cause), both with `kind: 'fault'`,
   * and a gate check or authenticator that fails (the client gets the 503 of
   * `unavailable`), with `kind: 'outage'`. A client's protocol mistakes are
   * not reported (they are logged as refusals). `errorLog(logger)` writes
   * these rate-limited.
   */
  readonly onerror?: OnError;
}

/** A web-standard handler: mount `fetch` on any runtime, or wrap it for node:http. */
export interface GatehouseHttpHandler {
  fetch(request: Request): Promise<Response>;
}

/** The HTTP response for a gate refusal: a JSON-RPC error body, `Retry-After` on 503, `WWW-Authenticate` on 401. */
export function refusalResponse(refusal: GateRefusal, options: ChallengeOptions = {}): Response {
  const rendered = renderRefusal(refusal, options);
  return new Response(rendered.body, { status: rendered.status, headers: rendered.headers });
}

function connectionOf<TRight extends string>(authInfo: AuthInfo | undefined): Connection<TRight> {
  const connection = authInfo?.extra?.[CONNECTION_KEY];
  if (!connection) throw gateProtocolError({ status: 401, reason: 'No authenticated connection.' });
  return connection as Connection<TRight>;
}

/**
 * Serves a Gatehouse server over Streamable HTTP (SDK v2; both protocol eras).
 *
 * Before the SDK sees a request, admission (one function for every
 * transport) runs in this order: gate checks such as the kill switch (503 +
 * `Retry-After`), `Host` and `Origin` (403), the bearer credential (401 +
 * `WWW-Authenticate`), and the host's authenticator (401/403); refusals go to
 * `logger`, rate-limited. A store behind a gate check or the authenticator
 * that fails or is too slow answers 503 with `Retry-After` (`unavailable`). Nothing is cached between requests: every request is
 * authenticated afresh, so rights and switches are live (I4, I6). Only an
 * admitted request's body is read, within `maxBodyBytes` (413 beyond it); a
 * JSON-RPC batch is refused (400) before any of its requests runs. Under
 * OAuth, a `tools/call` of a tool listed to the person but outside the
 * access token's scopes answers 403 `insufficient_scope` (I7) before the SDK
 * sees it, so the client can step up. Every JSON-RPC error that leaves, the
 * SDK's own included, repeats at most 200 characters of the caller's text
 * (a request id longer than that is refused, 400); the SDK's 4xx answers
 * are logged as the client's protocol mistakes, never reported as errors.
 */
export function createHttpHandler<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: HttpOptions = {},
): GatehouseHttpHandler {
  if (options.allowedHosts?.length === 0 || options.allowedOrigins?.length === 0) {
    throw new ConfigurationError(
      'createHttpHandler: allowedHosts and allowedOrigins may not be empty lists.',
    );
  }
  const maxBodyBytes = byteLimit(options.maxBodyBytes, 'createHttpHandler');
  const allowedHosts = [...(options.allowedHosts ?? LOCAL_HOSTNAMES)];
  const allowedOrigins = [...(options.allowedOrigins ?? LOCAL_HOSTNAMES)];
  const log = refusalLogOf(options.logger, server);
  const outage = outageOf(options.unavailable, 'createHttpHandler', options.onerror);
  const challenge = challengeOptions(options, 'createHttpHandler');
  const mcp = createMcpHandler(
    (ctx) => sdkServer(server, async () => connectionOf<TRight>(ctx.authInfo), options.onerror, 'http'),
    {
      legacy: options.legacy ?? 'stateless',
      maxRequestBodySize: maxBodyBytes,
      ...(options.onerror ? { onerror: sdkOnerror(options.onerror) } : {}),
    },
  );
  const sdkAnswer = async (request: Request, answer: Promise<Response>): Promise<Response> => {
    const { response, error } = await capErrorResponse(await answer);
    if (error && response.status < 500) sdkMistake(log, request, response.status, error.message, options);
    return response;
  };

  const gate = async (request: Request): Promise<Response> => {
    const { headers } = request;
    const admission = await admit(
      server,
      {
        transport: 'http',
        host: headers.get('host'),
        origin: headers.get('origin'),
        authorization: headers.get('authorization'),
        allowedHosts,
        allowedOrigins,
        tenant: () => options.tenantFrom?.(request),
        clientAddress: () => options.clientAddress?.(request),
      },
      log,
      outage,
    );
    if ('refusal' in admission) return refusalResponse(admission.refusal, challenge);
    const { connection } = admission;
    const authInfo: AuthInfo = {
      token: '[redacted]',
      clientId: connection.clientName,
      scopes: [...connection.rights],
      extra: { [CONNECTION_KEY]: connection },
    };
    // GET and DELETE are answered 405 (stateless serving): clients probe for a stream that way, no mistake
    if (request.method !== 'POST')
      return (await capErrorResponse(await mcp.fetch(request, { authInfo }))).response;
    const body = await readJsonBody(request, maxBodyBytes);
    const mistake = (status: 400 | 413, reason: string) =>
      log.refused({
        refusal: { status, reason },
        step: 'request',
        transport: 'http',
        clientAddress: options.clientAddress?.(request),
      });
    if (!body.ok) {
      mistake(body.status, body.message);
      const error = { code: body.code, message: body.message };
      // 413: close the connection rather than read the rest of an oversized body
      const headers = body.status === 413 ? { connection: 'close' } : undefined;
      return Response.json({ jsonrpc: '2.0', id: null, error }, { status: body.status, headers });
    }
    const edge = screenMessage(body.value, 'HTTP POST');
    if (edge) mistake(400, edge.message);
    if (edge)
      return Response.json(
        { jsonrpc: '2.0', id: edge.id, error: { code: edge.code, message: edge.message } },
        // an invalid request (an id too long to repeat) is the SDK's 400; malformed params are answered in band
        { status: edge.code === -32600 ? 400 : 200 },
      );
    const stepUp = await stepUpRefusal(server, connection, body.value);
    if (stepUp) {
      log.refused({
        refusal: stepUp,
        step: 'credential',
        transport: 'http',
        clientAddress: options.clientAddress?.(request),
      });
      return refusalResponse(stepUp, challenge);
    }
    return sdkAnswer(request, mcp.fetch(request, { authInfo, parsedBody: body.value }));
  };

  return Object.freeze({
    async fetch(request: Request): Promise<Response> {
      try {
        return await gate(request);
      } catch (error) {
        // a gate check, tenantFrom or the authenticator threw: fail closed, name no cause
        reportTo(options.onerror, error);
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
