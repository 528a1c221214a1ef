import type { Transport } from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import type { Connection } from './context.js';
import { ConfigurationError } from './errors.js';
import { gateProtocolError, sdkServer } from './serve/sdkServer.js';
import type { GatehouseServer } from './server.js';

/** Options of {@link serveStdio}. */
export interface StdioOptions {
  /** The credential of the one connection stdio serves (e.g. from an environment variable). */
  readonly token: string | undefined;
  /** The tenant, for a credential serving several tenants. */
  readonly tenant?: string | undefined;
  /**
   * Receives unexpected errors (SDK transport errors, a failing authenticator
   * or gate check); reporting only. The client sees a bare internal error.
   */
  readonly onerror?: (error: Error) => void;
  /**
   * The transport to serve on instead of the process's stdin/stdout, e.g. a
   * `StdioServerTransport` over a socket, or over in-process streams in tests.
   * The server owns it: it starts it and closes it with the handle.
   */
  readonly transport?: Transport | undefined;
}

/**
 * Serves a Gatehouse server over stdio: one connection whose credential
 * comes from configuration. Gate checks and the authenticator run on every
 * request, so a kill switch, a revoked token or a removed right applies to the
 * very next call; refusals are JSON-RPC errors (503 carries `retry_after_seconds`).
 */
export function serveStdio<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: StdioOptions,
): StdioServerHandle {
  const token = options.token;
  if (!token) throw new ConfigurationError('serveStdio: a token is required (set it in the environment).');
  const connection = async (): Promise<Connection<TRight>> => {
    const gated = await server.checkGate({ transport: 'stdio' });
    if (gated) throw gateProtocolError(gated);
    const decision = await server.authenticate({ token, transportTenant: options.tenant });
    if (!decision.ok) throw gateProtocolError({ status: decision.status, reason: decision.reason });
    return decision.connection;
  };
  return sdkServeStdio(() => sdkServer(server, connection, options.onerror), {
    ...(options.onerror ? { onerror: options.onerror } : {}),
    ...(options.transport ? { transport: options.transport } : {}),
  });
}
