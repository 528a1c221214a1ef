import type { Connection } from '../context.js';
import { ConfigurationError } from '../errors.js';
import type { Json } from '../json.js';
import type { Logger } from '../logging.js';
import type { GatehouseServer } from '../server.js';
import { ECHO_LIMIT } from '../text.js';
import { admit } from './admission.js';
import { byteLimit, type ReadBody, screenMessage } from './body.js';
import { LOCAL_HOSTNAMES } from './hostOrigin.js';
import { challengeOptions, type ProtectedResourceOptions } from './oauthMetadata.js';
import { renderRefusal } from './refusal.js';
import { refusalLogOf } from './refusalLog.js';
import type { Report } from './report.js';
import { stepUpRefusal } from './stepUp.js';
import { outageOf, type UnavailableOptions } from './unavailable.js';

/** One HTTP request as admission sees it, whichever library carried it. */
export interface HttpExchange {
  readonly method: string;
  /** A header's value by its lower-case name, or null. */
  header(name: string): string | null | undefined;
  /** Reads the body within `limit` bytes: parsed JSON, or why it cannot be served (413, 400). */
  readBody(limit: number): Promise<ReadBody>;
  /** The tenant the transport names (`tenantFrom`); asked only once a bearer token is there. */
  readonly tenant?: (() => string | undefined) | undefined;
  /** The client's address, for the refusal log only. */
  readonly clientAddress?: (() => string | undefined) | undefined;
}

/** An answer admission gives itself, independent of any HTTP library. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Admitted with the connection (and the parsed body of a POST), or answered here. */
export type HttpAdmission<TRight extends string> =
  | { readonly ok: true; readonly connection: Connection<TRight>; readonly body?: Json | undefined }
  | { readonly ok: false; readonly answer: HttpAnswer };

/** The options both HTTP transports share (`createHttpHandler`, `createAdmissionMiddleware`). */
export interface HttpAdmissionOptions {
  /** Allowed `Host` hostnames (DNS-rebinding defence, 403 otherwise). Default: localhost names. */
  readonly allowedHosts?: readonly string[];
  /** Allowed `Origin` hostnames (403 otherwise). A request without `Origin` passes. Default: localhost names. */
  readonly allowedOrigins?: readonly string[];
  /** `resource_metadata` URL advertised in `WWW-Authenticate` (OAuth discovery); default the one `oauth` derives. */
  readonly resourceMetadataUrl?: string;
  /**
   * This server as an OAuth protected resource (RFC 9728): challenges name
   * its metadata URL (`resource_metadata`) and `scopesSupported` (`scope`).
   */
  readonly oauth?: ProtectedResourceOptions;
  /**
   * Most bytes of a POST body; a larger one is answered 413 before anything is parsed.
   * Default 1 MiB. The body is read only after the request is admitted.
   */
  readonly maxBodyBytes?: number;
  /**
   * Where admission refusals (401, 403, 503) and a client's protocol
   * mistakes are logged, at info or warn: reason, transport and client
   * address, never token material; at most one line per client address and
   * reason a minute, then one "N suppressed" line. Default: the server's `logger`.
   */
  readonly logger?: Logger;
  /**
   * When a store admission reads (the kill switch's switch store, the
   * credential store behind the authenticator) fails or answers slower than
   * `timeoutMs` (default 5 s): every request answers HTTP 503 with a JSON-RPC error
   * naming no cause, with `Retry-After` of `retryAfterSeconds` (default 5);
   * the error goes to the server's `onError`, one line per window to the refusal log.
   */
  readonly unavailable?: UnavailableOptions;
}

const JSON_TYPE = { 'content-type': 'application/json' } as const;

const rpcError = (id: string | number | null, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

/**
 * HTTP admission, one function for every HTTP transport (the SDK v2
 * handler, the SDK v1 middleware): admission on the headers (admission
 * guards such as the kill switch, 503 + `Retry-After`; `Host` and `Origin`,
 * 403; the bearer credential, 401; the authenticator, 401/403), then, for
 * a POST, the body within `maxBodyBytes` (413, with `connection: close`),
 * the protocol edges (a batch, an id too long to repeat: 400; malformed
 * `tools/call` params: the short -32602 sentence) and OAuth step-up (403
 * `insufficient_scope`, I7). A refusal is logged (rate-limited) and comes
 * back rendered; the transport writes it as it is. `versionHeader` also
 * refuses an `MCP-Protocol-Version` header longer than 200 characters (the
 * SDK v1 transport would repeat it whole).
 */
export function httpAdmission<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: HttpAdmissionOptions,
  who: string,
  report: Report,
  checks: { readonly versionHeader?: boolean } = {},
): (exchange: HttpExchange) => Promise<HttpAdmission<TRight>> {
  if (options.allowedHosts?.length === 0 || options.allowedOrigins?.length === 0)
    throw new ConfigurationError(`${who}: allowedHosts and allowedOrigins may not be empty lists.`);
  const maxBodyBytes = byteLimit(options.maxBodyBytes, who);
  const allowedHosts = [...(options.allowedHosts ?? LOCAL_HOSTNAMES)];
  const allowedOrigins = [...(options.allowedOrigins ?? LOCAL_HOSTNAMES)];
  const log = refusalLogOf(options.logger, server);
  const outage = outageOf(options.unavailable, who, report);
  const challenge = challengeOptions(options, who);

  /** A client's protocol mistake answered here: logged like a refusal, rendered as a JSON-RPC error. */
  const mistake = (exchange: HttpExchange, status: number, answer: HttpAnswer): HttpAdmission<TRight> => {
    const reason = (JSON.parse(answer.body) as { error: { message: string } }).error.message;
    log.refused({
      refusal: { status, reason },
      step: 'request',
      transport: 'http',
      clientAddress: addressOf(exchange),
    });
    return { ok: false, answer };
  };

  return async function admitHttp(exchange) {
    const admission = await admit(
      server,
      {
        transport: 'http',
        host: exchange.header('host'),
        origin: exchange.header('origin'),
        authorization: exchange.header('authorization'),
        allowedHosts,
        allowedOrigins,
        tenant: exchange.tenant,
        clientAddress: exchange.clientAddress,
      },
      log,
      outage,
    );
    if ('refusal' in admission) return { ok: false, answer: renderRefusal(admission.refusal, challenge) };
    const { connection } = admission;
    const version = exchange.header('mcp-protocol-version');
    if (checks.versionHeader && (version?.length ?? 0) > ECHO_LIMIT) {
      const message = `Bad Request: Unsupported protocol version: the MCP-Protocol-Version header is longer than ${ECHO_LIMIT} characters.`;
      return mistake(exchange, 400, {
        status: 400,
        headers: JSON_TYPE,
        body: rpcError(null, -32000, message),
      });
    }
    if (exchange.method !== 'POST') return { ok: true, connection };
    const body = await exchange.readBody(maxBodyBytes);
    if (!body.ok) {
      // 413: close the connection rather than read the rest of an oversized body
      const headers = body.status === 413 ? { ...JSON_TYPE, connection: 'close' } : JSON_TYPE;
      return mistake(exchange, body.status, {
        status: body.status,
        headers,
        body: rpcError(null, body.code, body.message),
      });
    }
    const edge = screenMessage(body.value, 'HTTP POST');
    if (edge) {
      // an invalid request (an id too long to repeat) is a 400; malformed params are answered in band
      const status = edge.code === -32600 ? 400 : 200;
      const answer = { status, headers: JSON_TYPE, body: rpcError(edge.id, edge.code, edge.message) };
      log.refused({
        refusal: { status: 400, reason: edge.message },
        step: 'request',
        transport: 'http',
        clientAddress: addressOf(exchange),
      });
      return { ok: false, answer };
    }
    const stepUp = await stepUpRefusal(server, connection, body.value);
    if (stepUp) {
      log.refused({
        refusal: stepUp,
        step: 'credential',
        transport: 'http',
        clientAddress: addressOf(exchange),
      });
      return { ok: false, answer: renderRefusal(stepUp, challenge) };
    }
    return { ok: true, connection, body: body.value };
  };
}

/** The client's address for the log; a reader that throws leaves it out. */
function addressOf(exchange: HttpExchange): string | undefined {
  try {
    return exchange.clientAddress?.();
  } catch {
    return undefined;
  }
}
