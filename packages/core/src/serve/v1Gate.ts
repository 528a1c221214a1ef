import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { GateRefusal } from '../context.js';
import { ConfigurationError } from '../errors.js';
import type { GatehouseServer } from '../server.js';
import { bearerRefusal, readBearer } from './bearer.js';
import { checkHost, checkOrigin, LOCAL_HOSTNAMES } from './hostOrigin.js';
import { internalErrorBody, renderRefusal } from './refusal.js';
import { reportTo } from './report.js';
import { CONNECTION_KEY } from './v1Errors.js';

/** Options of {@link createGateMiddleware}. */
export interface GateMiddlewareOptions {
  /** Allowed `Host` hostnames (DNS-rebinding defence, 403 otherwise). Default: localhost names. */
  readonly allowedHosts?: readonly string[];
  /** Allowed `Origin` hostnames (403 otherwise). A request without `Origin` passes. Default: localhost names. */
  readonly allowedOrigins?: readonly string[];
  /** The tenant named by the transport (URL path or header), for credentials serving several tenants (I3). */
  readonly tenantFrom?: (request: IncomingMessage) => string | undefined;
  /** `resource_metadata` URL advertised in `WWW-Authenticate` (OAuth discovery). */
  readonly resourceMetadataUrl?: string;
  /** Receives a gate check, `tenantFrom` or authenticator that throws; the client gets a bare 500. */
  readonly onerror?: (error: Error) => void;
}

/** A node:http request as the SDK v1 transports read it: `auth` becomes `extra.authInfo`. */
export type GatedRequest = IncomingMessage & { auth?: AuthInfo };

/** A Node/Express middleware: answers a refusal itself, or sets `req.auth` and calls `next`. */
export type GateMiddleware = (
  req: GatedRequest,
  res: ServerResponse,
  next: (error?: unknown) => unknown,
) => Promise<void>;

type Admission =
  | { readonly ok: true; readonly auth: AuthInfo }
  | { readonly ok: false; readonly refusal: GateRefusal };

/**
 * The Gatehouse HTTP gate for an SDK v1 server on node:http or Express, run
 * on every request before the v1 transport: gate checks such as the kill
 * switch (503 + `Retry-After`), `Host` and `Origin` (403), the bearer
 * credential (401 + `WWW-Authenticate`), then the authenticator (401/403).
 * On success it sets `req.auth` (kept if an earlier middleware set it) with
 * the connection in `extra`, so the mounted tools read it per request; the
 * token itself is not passed on. A hook that throws fails closed with a bare
 * 500 and reports to `onerror`.
 *
 * @example
 * http.createServer((req, res) => gate(req, res, () => transport.handleRequest(req, res)));
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
  const allowedHosts = [...(options.allowedHosts ?? LOCAL_HOSTNAMES)];
  const allowedOrigins = [...(options.allowedOrigins ?? LOCAL_HOSTNAMES)];

  const admit = async (req: GatedRequest): Promise<Admission> => {
    const gated = await gatehouse.checkGate({ transport: 'http' });
    if (gated) return { ok: false, refusal: gated };
    const badHost =
      checkHost(req.headers.host, allowedHosts) ?? checkOrigin(req.headers.origin, allowedOrigins);
    if (badHost) return { ok: false, refusal: badHost };
    const bearer = readBearer(req.headers.authorization);
    if (!bearer.ok) return { ok: false, refusal: bearerRefusal(bearer.problem) };
    const decision = await gatehouse.authenticate({
      token: bearer.token,
      transportTenant: options.tenantFrom?.(req),
    });
    if (!decision.ok) return { ok: false, refusal: { status: decision.status, reason: decision.reason } };
    const { connection } = decision;
    const base: AuthInfo = req.auth ?? {
      token: '[redacted]',
      clientId: connection.clientName,
      scopes: [...connection.rights],
    };
    return { ok: true, auth: { ...base, extra: { ...base.extra, [CONNECTION_KEY]: connection } } };
  };

  return async function gatehouseGate(req, res, next) {
    let admission: Admission;
    try {
      admission = await admit(req);
    } catch (error) {
      reportTo(options.onerror, error);
      res.writeHead(500, { 'content-type': 'application/json' }).end(internalErrorBody());
      return;
    }
    if (!admission.ok) {
      const rendered = renderRefusal(admission.refusal, options);
      res.writeHead(rendered.status, rendered.headers).end(rendered.body);
      return;
    }
    req.auth = admission.auth;
    await next();
  };
}
