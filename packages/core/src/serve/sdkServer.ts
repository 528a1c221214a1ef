import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  inputRequired,
  type ListToolsResult,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AdmissionRefusal, Connection } from '../context.js';
import type { GatehouseServer, ToolAnswer } from '../server.js';
import { type RequestFacts, startRequest } from '../telemetry.js';
import { capOutgoing } from './echoes.js';
import { ADMISSION_RPC_CODES, admissionErrorData } from './refusal.js';
import type { Report } from './report.js';
import { served } from './served.js';

// Shared with the SDK v1 adapter, which must not load SDK v2: they live in SDK-free files.
export { ADMISSION_RPC_CODES } from './refusal.js';

/** An admission refusal as a JSON-RPC error (stdio); carries the retry hint for 503. */
export function admissionProtocolError(refusal: AdmissionRefusal): ProtocolError {
  return new ProtocolError(ADMISSION_RPC_CODES[refusal.status], refusal.reason, admissionErrorData(refusal));
}

/** The JSON-RPC error for an unexpected failure: the cause goes to the server's `onError`, never to the client. */
export function internalProtocolError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
}

/**
 * A low-level SDK v2 `Server` whose `tools/list` and `tools/call` are
 * Gatehouse's. `connection` is asked on every request, so rights, switches
 * and tenant are never cached on a transport session.
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
  const sdk = new Server({ name: server.name, version: server.version }, { capabilities: { tools: {} } });
  // every transport the SDK connects it to (per HTTP request, stdio) sends capped errors only
  const connect = sdk.connect.bind(sdk);
  sdk.connect = (transport) => {
    capOutgoing(transport);
    return connect(transport);
  };
  const traced = served(
    {
      passes: (error) => error instanceof ProtocolError,
      internal: internalProtocolError,
      codeOf: (error) => (error as ProtocolError).code,
    },
    report,
  );
  const factsOf = (
    ctx: ServerContext,
    method: RequestFacts['method'],
    meta: Record<string, unknown> | undefined,
    tool?: string,
  ): RequestFacts => {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    // 2026: the envelope; 2025 with initialize: the negotiated one; stateless 2025 HTTP: the header
    const version =
      envelope?.[PROTOCOL_VERSION_META_KEY] ??
      sdk.getNegotiatedProtocolVersion() ??
      ctx.http?.req?.headers.get('mcp-protocol-version') ??
      undefined;
    const traceparent = meta?.traceparent;
    const tracestate = meta?.tracestate;
    return {
      method,
      // a name the server does not serve is the client's text: never a span name or metric label
      tool: tool === undefined ? undefined : server.isTool?.(tool) ? tool : '(unknown)',
      requestId: ctx.mcpReq.id,
      protocolVersion: typeof version === 'string' ? version : undefined,
      transport,
      traceparent: typeof traceparent === 'string' ? traceparent : undefined,
      tracestate: typeof tracestate === 'string' ? tracestate : undefined,
    };
  };
  sdk.setRequestHandler('tools/list', (request, ctx) => {
    const span =
      server.telemetry &&
      startRequest(server.telemetry, factsOf(ctx, 'tools/list', ctx.mcpReq._meta ?? request.params?._meta));
    return traced(span, async () => {
      const who = await connection();
      const tools = await server.listTools(who);
      span?.end({ outcome: 'ok', tenantId: who.tenantId, connectionId: who.connectionId });
      return { tools: tools as unknown as ListToolsResult['tools'] };
    });
  });
  sdk.setRequestHandler('tools/call', (request, ctx) => {
    const name = request.params.name;
    const span =
      server.telemetry &&
      startRequest(
        server.telemetry,
        factsOf(ctx, 'tools/call', ctx.mcpReq._meta ?? request.params._meta, name),
      );
    return traced(span, async () => {
      const state = ctx.mcpReq.requestState();
      const answer = await server.answer(await connection(), name, request.params.arguments, {
        requestId: ctx.mcpReq.id,
        signal: ctx.mcpReq.signal,
        span,
        ...(typeof state === 'string' ? { requestState: state } : {}),
      });
      return askPerson(answer, state, sdk, ctx) ?? (answer.result as unknown as CallToolResult);
    });
  });
  return sdk;
}

/** The inputResponses key of the approval's URL elicitation. */
const APPROVAL_INPUT = 'approval';

/**
 * Whether the client declared URL-mode elicitation: on the 2026-07-28 era in
 * the request's own envelope; on a 2025 era connection at `initialize`
 * (stdio). A 2025 request over stateless HTTP saw no `initialize` and has
 * no server-to-client channel, so it counts as without.
 */
function declaresUrlElicitation(sdk: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? sdk.getClientCapabilities()) as
    | ClientCapabilities
    | undefined;
  return capabilities?.elicitation?.url !== undefined;
}

/**
 * A person's action as a URL elicitation (I9): the first round's preview,
 * and a retry the person has not decided yet, answer input-required with
 * the approval page's URL and the pending action's id as request state.
 * A retry whose elicitation was declined or cancelled gets the tool result
 * (`approval_pending`, the URL in it), so the model can tell the user.
 */
function askPerson(
  answer: ToolAnswer,
  state: unknown,
  sdk: Server,
  ctx: ServerContext,
): CallToolResult | undefined {
  const { approval } = answer;
  if (!approval || !declaresUrlElicitation(sdk, ctx)) return undefined;
  if (typeof state === 'string') {
    const answer = ctx.mcpReq.inputResponses?.[APPROVAL_INPUT] as { action?: unknown } | undefined;
    if (answer?.action !== 'accept') return undefined;
  }
  return inputRequired({
    inputRequests: {
      [APPROVAL_INPUT]: inputRequired.elicitUrl({
        message: 'A person must approve this action on the product’s page before it runs.',
        url: approval.url,
      }),
    },
    requestState: approval.pendingActionId,
  }) as unknown as CallToolResult;
}
