import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AdmissionRefusal, Connection } from '../context.js';
import type { GatehouseServer } from '../server.js';
import { capOutgoing } from './echoes.js';
import { ADMISSION_RPC_CODES, admissionErrorData } from './refusal.js';
import type { Report } from './report.js';
import { internalProtocolError, type RequestView, toolHandlers } from './toolHandlers.js';

// Shared with the SDK v1 adapter, which must not load SDK v2: they live in SDK-free files.
export { ADMISSION_RPC_CODES } from './refusal.js';
export { internalProtocolError };

/** An admission refusal as a JSON-RPC error (stdio); carries the retry hint for 503. */
export function admissionProtocolError(refusal: AdmissionRefusal): ProtocolError {
  return new ProtocolError(ADMISSION_RPC_CODES[refusal.status], refusal.reason, admissionErrorData(refusal));
}

/**
 * A low-level SDK v2 `Server` whose `tools/list` and `tools/call` are
 * Gatehouse's (`toolHandlers`). `connection` is asked on every request, so
 * rights, switches and tenant are never cached on a transport session.
 *
 * The SDK answers a thrown handler error with its message verbatim; here only
 * `ProtocolError`s (admission refusals) reach the client. Every JSON-RPC error it
 * sends, its own included (invalid params, unsupported protocol version),
 * repeats at most 200 characters of caller text (`capRpcError`). Anything else (a failing
 * authenticator, admission guard or visibility guard) is reported to the server's `onError` and
 * answered with a bare JSON-RPC internal error.
 */
export function sdkServer<TRight extends string>(
  server: GatehouseServer<TRight>,
  connection: () => Promise<Connection<TRight>>,
  report: Report,
  transport: 'http' | 'stdio',
): Server {
  return sdkServerWith(toolHandlers(server, report, transport), server, connection);
}

/** {@link sdkServer} over handlers built once (the HTTP handler builds them once, not per request). */
export function sdkServerWith<TRight extends string>(
  handlers: ReturnType<typeof toolHandlers<TRight>>,
  info: { readonly name: string; readonly version: string },
  connection: () => Promise<Connection<TRight>>,
): Server {
  const sdk = new Server({ name: info.name, version: info.version }, { capabilities: { tools: {} } });
  // every transport the SDK connects it to (per HTTP request, stdio) sends capped errors only
  const connect = sdk.connect.bind(sdk);
  sdk.connect = (transport) => {
    capOutgoing(transport);
    return connect(transport);
  };
  sdk.setRequestHandler('tools/list', (request, ctx) =>
    handlers.list(viewOf(sdk, ctx, ctx.mcpReq._meta ?? request.params?._meta), connection),
  );
  sdk.setRequestHandler('tools/call', (request, ctx) =>
    handlers.call(
      viewOf(sdk, ctx, ctx.mcpReq._meta ?? request.params._meta),
      connection,
      request.params.name,
      request.params.arguments,
    ),
  );
  return sdk;
}

/** What Gatehouse's handlers read of a request the SDK parsed. */
function viewOf(sdk: Server, ctx: ServerContext, meta: Record<string, unknown> | undefined): RequestView {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return {
    id: ctx.mcpReq.id,
    meta,
    // 2026: the envelope; 2025 with initialize: the negotiated one; stateless 2025 HTTP: the header
    protocolVersion:
      envelope?.[PROTOCOL_VERSION_META_KEY] ??
      sdk.getNegotiatedProtocolVersion() ??
      ctx.http?.req?.headers.get('mcp-protocol-version') ??
      undefined,
    capabilities: () =>
      (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? sdk.getClientCapabilities()) as
        | ClientCapabilities
        | undefined,
    get requestState() {
      return ctx.mcpReq.requestState();
    },
    inputResponses: ctx.mcpReq.inputResponses as Record<string, unknown> | undefined,
    signal: ctx.mcpReq.signal,
  };
}
