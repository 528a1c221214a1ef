import {
  type CallToolResult,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import type { Connection, GateRefusal } from '../context.js';
import type { GatehouseServer } from '../server.js';
import { GATE_RPC_CODES, gateErrorData } from './refusal.js';
import { reportTo } from './report.js';

// Shared with the SDK v1 adapter, which must not load SDK v2: they live in SDK-free files.
export { GATE_RPC_CODES } from './refusal.js';
export { reportTo } from './report.js';

/** A gate refusal as a JSON-RPC error (stdio); carries the retry hint for 503. */
export function gateProtocolError(refusal: GateRefusal): ProtocolError {
  return new ProtocolError(GATE_RPC_CODES[refusal.status], refusal.reason, gateErrorData(refusal));
}

/** The JSON-RPC error for an unexpected failure: the cause goes to `onerror`, never to the client. */
export function internalProtocolError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
}

/**
 * A low-level SDK v2 `Server` whose `tools/list` and `tools/call` are
 * Gatehouse's. `connection` is asked on every request, so rights, switches
 * and tenant are never cached on a transport session.
 *
 * The SDK answers a thrown handler error with its message verbatim; here only
 * `ProtocolError`s (gate refusals) reach the client. Anything else (a failing
 * authenticator, gate check or visibility rule) is reported to `onerror` and
 * answered with a bare JSON-RPC internal error.
 */
export function sdkServer<TRight extends string>(
  server: GatehouseServer<TRight>,
  connection: () => Promise<Connection<TRight>>,
  onerror?: (error: Error) => void,
): Server {
  const sdk = new Server({ name: server.name, version: server.version }, { capabilities: { tools: {} } });
  const sealed = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      reportTo(onerror, error);
      throw internalProtocolError();
    }
  };
  sdk.setRequestHandler('tools/list', () =>
    sealed(async () => {
      const tools = await server.listTools(await connection());
      return { tools: tools as unknown as ListToolsResult['tools'] };
    }),
  );
  sdk.setRequestHandler('tools/call', (request, ctx) =>
    sealed(async () => {
      const result = await server.callTool(
        await connection(),
        request.params.name,
        request.params.arguments,
        {
          requestId: ctx.mcpReq.id,
          signal: ctx.mcpReq.signal,
        },
      );
      return result as unknown as CallToolResult;
    }),
  );
  return sdk;
}
