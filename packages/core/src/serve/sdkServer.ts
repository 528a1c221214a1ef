import {
  type CallToolResult,
  type ListToolsResult,
  ProtocolError,
  Server,
} from '@modelcontextprotocol/server';
import type { Connection, GateRefusal } from '../context.js';
import type { GatehouseServer } from '../server.js';

/** JSON-RPC error codes for gate refusals where there is no HTTP status to carry them (stdio). */
export const GATE_RPC_CODES = Object.freeze({ 401: -32001, 403: -32003, 503: -32005 });

/** A gate refusal as a JSON-RPC error (stdio); carries the retry hint for 503. */
export function gateProtocolError(refusal: GateRefusal): ProtocolError {
  return new ProtocolError(GATE_RPC_CODES[refusal.status], refusal.reason, {
    status: refusal.status,
    ...(refusal.retryAfterSeconds !== undefined ? { retry_after_seconds: refusal.retryAfterSeconds } : {}),
  });
}

/**
 * A low-level SDK v2 `Server` whose `tools/list` and `tools/call` are
 * Gatehouse's. `connection` is asked on every request, so rights, switches
 * and tenant are never cached on a transport session.
 */
export function sdkServer<TRight extends string>(
  server: GatehouseServer<TRight>,
  connection: () => Promise<Connection<TRight>>,
): Server {
  const sdk = new Server({ name: server.name, version: server.version }, { capabilities: { tools: {} } });
  sdk.setRequestHandler('tools/list', async () => {
    const tools = server.listTools(await connection());
    return { tools: tools as unknown as ListToolsResult['tools'] };
  });
  sdk.setRequestHandler('tools/call', async (request, ctx) => {
    const result = await server.callTool(await connection(), request.params.name, request.params.arguments, {
      requestId: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
    });
    return result as unknown as CallToolResult;
  });
  return sdk;
}
