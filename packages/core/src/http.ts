import type { AdmissionRefusal } from './context.js';
import { mcpEndpoint } from './serve/endpoint.js';
import type { HttpAdmissionOptions } from './serve/httpAdmission.js';
import { type ChallengeOptions, renderRefusal } from './serve/refusal.js';
import type { GatehouseServer } from './server.js';

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
