import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Connection, GateRefusal } from '../context.js';
import { ConfigurationError } from '../errors.js';
import type { Json } from '../json.js';
import type { Logger } from '../logging.js';
import type { GatehouseServer } from '../server.js';
import { ECHO_LIMIT } from '../text.js';
import { admit } from './admission.js';
import { byteLimit, screenMessage } from './body.js';
import { LOCAL_HOSTNAMES } from './hostOrigin.js';
import { challengeOptions, type ProtectedResourceOptions } from './oauthMetadata.js';
import { internalErrorBody, renderRefusal } from './refusal.js';
import { refusalLogOf } from './refusalLog.js';
import { type OnError, reportTo } from './report.js';
import { stepUpRefusal } from './stepUp.js';
import { outageOf, type UnavailableOptions } from './unavailable.js';
import { CONNECTION_KEY } from './v1Errors.js';

/** Options of {@link createGateMiddleware}. */
export interface GateMiddlewareOptions {
  /** Allowed `Host` hostnames (DNS-rebinding defence, 403 otherwise). Default: localhost names. */
  readonly allowedHosts?: readonly string[];
  /** Allowed `Origin` hostnames (403 otherwise). A request without `Origin` passes. Default: localhost names. */
  readonly allowedOrigins?: readonly string[];
  /** The tenant named by the transport (URL path or header), for credentials serving several tenants (I3). */
  readonly tenantFrom?: (request: IncomingMessage) => string | undefined;
  /** `resource_metadata` URL advertised in `WWW-Authenticate` (OAuth discovery); default the one `oauth` derives. */
  readonly resourceMetadataUrl?: string;
  /**
   * This server as an OAuth protected resource (RFC 9728): challenges name
   * its metadata URL and `scopesSupported`; mount
   * `protectedResourceMetadata(oauth).fetch` to serve the document.
   */
  readonly oauth?: ProtectedResourceOptions;
  /**
   * Most bytes of an admitted POST body; a larger one is answered 413 before
   * anything is parsed. Default 1 MiB. A body a parser already read is not re-measured.
   */
  readonly maxBodyBytes?: number;
  /**
   * Where gate refusals (401, 403, 503) are logged, at info or warn: reason,
   * transport and client address, never token material; at most one line per
   * client address and reason a minute, then one "N suppressed" line. Pass the
   * server's logger. Default: the server's `logger`.
   */
  readonly logger?: Logger;
  /** The client's address for the refusal log (e.g. from a proxy header you trust); default the socket's. */
  readonly clientAddress?: (request: IncomingMessage) => string | undefined;
  /**
   * When a store admission reads (the kill switch's switch store, the
   * credential store behind the authenticator) fails or answers slower than
   * `timeoutMs` (default 5 s): every request answers HTTP 503 with a JSON-RPC error
   * naming no cause, with `Retry-After` of `retryAfterSeconds` (default 5);
   * the error goes to `onerror`, one line per window to the refusal log.
   */
  readonly unavailable?: UnavailableOptions;
  /**
   * Receives a `tenantFrom` that throws (the client gets a bare 500) and a
   * failing gate check or authenticator (the client gets a 503, see `unavailable`).
   */
  readonly onerror?: OnError;
}

/**
 * A node:http request as the SDK v1 transports read it: `auth` becomes
 * `extra.authInfo`; `body` and `rawBody` carry the body the gate read.
 */
export type GatedRequest = IncomingMessage & { auth?: AuthInfo; body?: unknown; rawBody?: Buffer };

/** A Node/Express middleware: answers a refusal itself, or sets `req.auth` and calls `next`. */
export type GateMiddleware = (
  req: GatedRequest,
  res: ServerResponse,
  next: (error?: unknown) => unknown,
) => Promise<void>;

/** Reads a node request body within `limit` bytes; `undefined` when it is larger (reading stops there). */
async function boundedBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) return undefined;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

type BodyCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: number; readonly body: { readonly error: { message: string } } };

const rpcError = (id: string | number | null, code: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

/**
 * The SDK v1 transport repeats an unsupported `MCP-Protocol-Version` header
 * whole in its answer; one longer than any version is refused here instead.
 */
function checkHeaders(req: GatedRequest): BodyCheck {
  const version = req.headers['mcp-protocol-version'];
  const length = Array.isArray(version) ? version.join(', ').length : (version?.length ?? 0);
  if (length <= ECHO_LIMIT) return { ok: true };
  const message = `Bad Request: Unsupported protocol version: the MCP-Protocol-Version header is longer than ${ECHO_LIMIT} characters.`;
  return { ok: false, status: 400, body: rpcError(null, -32000, message) };
}

/**
 * Reads an admitted POST body once, within `limit`, and hands it on as
 * `req.body` (parsed) and `req.rawBody` (bytes, which the SDK v1 transport
 * reads instead of the stream). A body a parser already read is taken as it
 * is. Refuses an oversized body (413), malformed JSON (400), a batch (400)
 * and a `tools/call` with malformed params (-32602) before the transport sees them.
 */
async function checkBody(req: GatedRequest, limit: number): Promise<BodyCheck> {
  let value: Json;
  if (req.body !== undefined && req.readableEnded) {
    value = req.body as Json;
  } else {
    const bytes = await boundedBody(req, limit);
    if (bytes === undefined) {
      return {
        ok: false,
        status: 413,
        body: rpcError(null, -32600, `The request body is larger than ${limit} bytes.`),
      };
    }
    try {
      value = JSON.parse(bytes.toString('utf8')) as Json;
    } catch {
      return { ok: false, status: 400, body: rpcError(null, -32700, 'Parse error: the body is not JSON.') };
    }
    req.rawBody = bytes;
    req.body = value;
  }
  const edge = screenMessage(value, 'HTTP POST');
  if (!edge) return { ok: true };
  return {
    ok: false,
    status: edge.code === -32600 ? 400 : 200,
    body: rpcError(edge.id, edge.code, edge.message),
  };
}

/**
 * The Gatehouse HTTP gate for an SDK v1 server on node:http or Express, run
 * on every request before the v1 transport: admission, the same as on every
 * transport (gate checks such as the kill switch, 503 + `Retry-After`;
 * `Host` and `Origin`, 403; the bearer credential, 401 + `WWW-Authenticate`;
 * the authenticator, 401/403), refusals logged to `logger`. An admitted POST
 * body is then read within `maxBodyBytes` (413 beyond it) and a JSON-RPC
 * batch, an id longer than 200 characters and an `MCP-Protocol-Version`
 * header longer than that (the v1 transport would repeat it whole) are
 * refused (400) before the transport sees them, and logged as the client's
 * protocol mistakes; the body is handed on as `req.body` and `req.rawBody`.
 * Under OAuth, a `tools/call` of a tool listed to the person but outside
 * the access token's scopes answers 403 `insufficient_scope` here (I7). On success it sets `req.auth` (kept if
 * an earlier middleware set it) with the connection in `extra`, so the
 * mounted tools read it per request; the token itself is not passed on. A
 * hook that throws fails closed with a bare 500 and reports to `onerror`.
 *
 * @example
 * http.createServer((req, res) => gate(req, res, () => transport.handleRequest(req, res, req.body)));
 */
export function createGateMiddleware<TRight extends string>(
  gatehouse: GatehouseServer<TRight>,
  options: GateMiddlewareOptions = {},
): GateMiddleware {
  if (options.allowedHosts?.length === 0 || options.allowedOrigins?.length === 0) {
    throw new ConfigurationError(
      'createGateMiddleware: allowedHosts and allowedOrigins may not be empty lists.',
    );
  }
  const maxBodyBytes = byteLimit(options.maxBodyBytes, 'createGateMiddleware');
  const allowedHosts = [...(options.allowedHosts ?? LOCAL_HOSTNAMES)];
  const allowedOrigins = [...(options.allowedOrigins ?? LOCAL_HOSTNAMES)];
  const log = refusalLogOf(options.logger, gatehouse);
  const outage = outageOf(options.unavailable, 'createGateMiddleware', options.onerror);
  const challenge = challengeOptions(options, 'createGateMiddleware');

  const authOf = async (req: GatedRequest): Promise<AuthInfo | GateRefusal> => {
    const admission = await admit(
      gatehouse,
      {
        transport: 'http',
        host: req.headers.host,
        origin: req.headers.origin,
        authorization: req.headers.authorization,
        allowedHosts,
        allowedOrigins,
        tenant: () => options.tenantFrom?.(req),
        clientAddress: () => (options.clientAddress ? options.clientAddress(req) : req.socket?.remoteAddress),
      },
      log,
      outage,
    );
    if ('refusal' in admission) return admission.refusal;
    const { connection } = admission;
    const base: AuthInfo = req.auth ?? {
      token: '[redacted]',
      clientId: connection.clientName,
      scopes: [...connection.rights],
    };
    return { ...base, extra: { ...base.extra, [CONNECTION_KEY]: connection } };
  };

  /** OAuth step-up (I7): a `tools/call` the token's scopes do not grant is refused 403 before the transport sees it. */
  const stepUp = async (req: GatedRequest, auth: AuthInfo): Promise<GateRefusal | undefined> => {
    const connection = auth.extra?.[CONNECTION_KEY] as Connection<TRight> | undefined;
    if (!connection || req.method !== 'POST') return undefined;
    const refusal = await stepUpRefusal(gatehouse, connection, req.body as Json);
    if (refusal) {
      const clientAddress = options.clientAddress ? options.clientAddress(req) : req.socket?.remoteAddress;
      log.refused({ refusal, step: 'credential', transport: 'http', clientAddress });
    }
    return refusal;
  };

  /** A client's protocol mistake the gate answers itself (oversized, not JSON, a batch, …), logged like a refusal. */
  const mistake = (req: GatedRequest, check: BodyCheck & { ok: false }): void => {
    const clientAddress = options.clientAddress ? options.clientAddress(req) : req.socket?.remoteAddress;
    const refusal = { status: check.status, reason: check.body.error.message };
    log.refused({ refusal, step: 'request', transport: 'http', clientAddress });
  };

  return async function gatehouseGate(req, res, next) {
    let admitted: AuthInfo | GateRefusal;
    let body: BodyCheck = { ok: true };
    try {
      admitted = await authOf(req);
      if ('token' in admitted) body = checkHeaders(req);
      if ('token' in admitted && body.ok && req.method === 'POST') body = await checkBody(req, maxBodyBytes);
      if ('token' in admitted && body.ok) admitted = (await stepUp(req, admitted)) ?? admitted;
      if ('token' in admitted && !body.ok) mistake(req, body);
    } catch (error) {
      reportTo(options.onerror, error);
      res.writeHead(500, { 'content-type': 'application/json' }).end(internalErrorBody());
      return;
    }
    if (!('token' in admitted)) {
      const rendered = renderRefusal(admitted, challenge);
      res.writeHead(rendered.status, rendered.headers).end(rendered.body);
      return;
    }
    if (!body.ok) {
      const headers = {
        'content-type': 'application/json',
        ...(body.status === 413 ? { connection: 'close' } : {}),
      };
      res.writeHead(body.status, headers).end(JSON.stringify(body.body));
      return;
    }
    req.auth = admitted;
    await next();
  };
}
