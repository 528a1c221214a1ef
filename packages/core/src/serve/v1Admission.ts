import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { ConfigurationError } from '../errors.js';
import type { Json } from '../json.js';
import type { GatehouseServer } from '../server.js';
import type { ReadBody } from './body.js';
import { type HttpAdmissionOptions, httpAdmission } from './httpAdmission.js';
import { internalErrorBody } from './refusal.js';
import { refuseMovedOnerror, reporter } from './report.js';
import { CONNECTION_KEY } from './v1Errors.js';

/** Options of {@link createAdmissionMiddleware}. */
export interface AdmissionMiddlewareOptions extends HttpAdmissionOptions {
  /** The tenant named by the transport (URL path or header), for credentials serving several tenants (I3). */
  readonly tenantFrom?: (request: IncomingMessage) => string | undefined;
  /** The client's address for the refusal log (e.g. from a proxy header you trust); default the socket's. */
  readonly clientAddress?: (request: IncomingMessage) => string | undefined;
}

/**
 * A node:http request as the SDK v1 transports read it: `auth` becomes
 * `extra.authInfo`; `body` and `rawBody` carry the body admission read.
 */
export type AdmittedRequest = IncomingMessage & { auth?: AuthInfo; body?: unknown; rawBody?: Buffer };

/** A Node/Express middleware: answers a refusal itself, or sets `req.auth` and calls `next`. */
export type AdmissionMiddleware = (
  req: AdmittedRequest,
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

/**
 * Reads an admitted POST body once, within `limit`, and hands it on as
 * `req.body` (parsed) and `req.rawBody` (bytes, which the SDK v1 transport
 * reads instead of the stream). A body a parser already read is taken as it is.
 */
async function readNodeBody(req: AdmittedRequest, limit: number): Promise<ReadBody> {
  if (req.body !== undefined && req.readableEnded) return { ok: true, value: req.body as Json };
  const bytes = await boundedBody(req, limit);
  if (bytes === undefined)
    return {
      ok: false,
      status: 413,
      code: -32600,
      message: `The request body is larger than ${limit} bytes.`,
    };
  let value: Json;
  try {
    value = JSON.parse(bytes.toString('utf8')) as Json;
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the body is not JSON.' };
  }
  req.rawBody = bytes;
  req.body = value;
  return { ok: true, value };
}

const headerOf = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/**
 * The Gatehouse HTTP admission for an SDK v1 server on node:http or Express, run
 * on every request before the v1 transport: HTTP admission, the same
 * function as the SDK v2 handler's (admission guards such as the kill
 * switch, 503 + `Retry-After`; `Host` and `Origin`, 403; the bearer
 * credential, 401 + `WWW-Authenticate`; the authenticator, 401/403; an
 * admitted POST body within `maxBodyBytes`, 413; a batch, an id longer than
 * 200 characters and malformed `tools/call` params; OAuth step-up, 403
 * `insufficient_scope`), plus an `MCP-Protocol-Version` header longer than
 * 200 characters (the v1 transport would repeat it whole), 400. Refusals are
 * logged to `logger`; the body is handed on as `req.body` and `req.rawBody`.
 * On success it sets `req.auth` (kept if an earlier middleware set it) with
 * the connection in `extra`, so the mounted tools read it per request; the
 * token itself is not passed on. A hook that throws fails closed with a
 * bare 500 and reports to the server's `onError`.
 *
 * @example
 * http.createServer((req, res) => gate(req, res, () => transport.handleRequest(req, res, req.body)));
 */
export function createAdmissionMiddleware<TRight extends string>(
  gatehouse: GatehouseServer<TRight>,
  options: AdmissionMiddlewareOptions = {},
): AdmissionMiddleware {
  refuseMovedOnerror(options, 'createAdmissionMiddleware', (m) => new ConfigurationError(m));
  const report = reporter(gatehouse, 'http');
  const admitHttp = httpAdmission(gatehouse, options, 'createAdmissionMiddleware', report, {
    versionHeader: true,
  });
  return async function gatehouseGate(req, res, next) {
    let admission: Awaited<ReturnType<typeof admitHttp>>;
    try {
      admission = await admitHttp({
        method: req.method ?? 'GET',
        header: (name) => headerOf(req, name),
        readBody: (limit) => readNodeBody(req, limit),
        tenant: () => options.tenantFrom?.(req),
        clientAddress: () => (options.clientAddress ? options.clientAddress(req) : req.socket?.remoteAddress),
      });
    } catch (error) {
      report(error);
      res.writeHead(500, { 'content-type': 'application/json' }).end(internalErrorBody());
      return;
    }
    if (!admission.ok) {
      const { status, headers, body } = admission.answer;
      res.writeHead(status, headers).end(body);
      return;
    }
    const { connection } = admission;
    const base: AuthInfo = req.auth ?? {
      token: '[redacted]',
      clientId: connection.clientName,
      scopes: [...connection.rights],
    };
    req.auth = { ...base, extra: { ...base.extra, [CONNECTION_KEY]: connection } };
    await next();
  };
}
