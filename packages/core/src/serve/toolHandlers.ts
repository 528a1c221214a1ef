import {
  type CallToolResult,
  type ClientCapabilities,
  inputRequired,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { Connection } from '../context.js';
import type { GatehouseServer, ToolAnswer } from '../server.js';
import { type RequestFacts, startRequest } from '../telemetry.js';
import type { Report } from './report.js';
import { served } from './served.js';

/** The JSON-RPC error for an unexpected failure: the cause goes to the server's `onError`, never to the client. */
export function internalProtocolError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
}

/**
 * One `tools/list` or `tools/call` request as Gatehouse's handlers read it,
 * whoever parsed it: the SDK's `Server` (every era and transport) or the
 * native 2026-07-28 HTTP path.
 */
export interface RequestView {
  readonly id: string | number;
  /** `params._meta` without the protocol envelope: trace context. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** The protocol revision the request is served on, when known. */
  readonly protocolVersion: unknown;
  /** The client's declared capabilities: the 2026 envelope's, or the ones of `initialize`. */
  readonly capabilities: () => ClientCapabilities | undefined;
  /** The MRTR request state the client sent back (2026-07-28), when any. */
  readonly requestState: unknown;
  /** The MRTR input responses the client sent back, by key. */
  readonly inputResponses: Readonly<Record<string, unknown>> | undefined;
  readonly signal: AbortSignal;
}

/** Gatehouse's `tools/list` and `tools/call`, as every SDK v2 serving path runs them. */
export interface ToolHandlers<TRight extends string> {
  list(view: RequestView, connection: () => Promise<Connection<TRight>>): Promise<ListToolsResult>;
  call(
    view: RequestView,
    connection: () => Promise<Connection<TRight>>,
    name: string,
    args: unknown,
  ): Promise<CallToolResult>;
}

/**
 * The handler bodies of `tools/list` and `tools/call`, one copy for the
 * SDK's `Server` and the native 2026-07-28 HTTP path: each request opens
 * its telemetry span, asks `connection` afresh, and only `ProtocolError`s
 * (admission refusals) pass; anything else thrown is reported to the
 * server's `onError` and becomes a bare JSON-RPC internal error (`served`).
 */
export function toolHandlers<TRight extends string>(
  server: GatehouseServer<TRight>,
  report: Report,
  transport: 'http' | 'stdio',
): ToolHandlers<TRight> {
  const traced = served(
    {
      passes: (error) => error instanceof ProtocolError,
      internal: internalProtocolError,
      codeOf: (error) => (error as ProtocolError).code,
    },
    report,
  );
  const factsOf = (view: RequestView, method: RequestFacts['method'], tool?: string): RequestFacts => {
    const traceparent = view.meta?.traceparent;
    const tracestate = view.meta?.tracestate;
    return {
      method,
      // a name the server does not serve is the client's text: never a span name or metric label
      tool: tool === undefined ? undefined : server.isTool?.(tool) ? tool : '(unknown)',
      requestId: view.id,
      protocolVersion: typeof view.protocolVersion === 'string' ? view.protocolVersion : undefined,
      transport,
      traceparent: typeof traceparent === 'string' ? traceparent : undefined,
      tracestate: typeof tracestate === 'string' ? tracestate : undefined,
    };
  };
  return {
    list(view, connection) {
      const span = server.telemetry && startRequest(server.telemetry, factsOf(view, 'tools/list'));
      return traced(span, async () => {
        const who = await connection();
        const tools = await server.listTools(who);
        span?.end({ outcome: 'ok', tenantId: who.tenantId, connectionId: who.connectionId });
        return { tools: tools as unknown as ListToolsResult['tools'] };
      });
    },
    call(view, connection, name, args) {
      const span = server.telemetry && startRequest(server.telemetry, factsOf(view, 'tools/call', name));
      return traced(span, async () => {
        const state = view.requestState;
        const answer = await server.answer(await connection(), name, args, {
          requestId: view.id,
          signal: view.signal,
          span,
          ...(typeof state === 'string' ? { requestState: state } : {}),
        });
        return askPerson(answer, state, view) ?? (answer.result as unknown as CallToolResult);
      });
    },
  };
}

/** The inputResponses key of the approval's URL elicitation. */
const APPROVAL_INPUT = 'approval';

/**
 * A person's action as a URL elicitation (I9), when the client declared
 * URL-mode elicitation (on 2026-07-28 in the request's own envelope; on a
 * 2025 era connection at `initialize`, stdio; a 2025 request over stateless
 * HTTP saw no `initialize` and counts as without): the first round's
 * preview, and a retry the person has not decided yet, answer
 * input-required with the approval page's URL and the pending action's id
 * as request state. A retry whose elicitation was declined or cancelled
 * gets the tool result (`approval_pending`, the URL in it), so the model
 * can tell the user.
 */
function askPerson(answer: ToolAnswer, state: unknown, view: RequestView): CallToolResult | undefined {
  const { approval } = answer;
  if (!approval || view.capabilities()?.elicitation?.url === undefined) return undefined;
  if (typeof state === 'string') {
    const response = view.inputResponses?.[APPROVAL_INPUT] as { action?: unknown } | undefined;
    if (response?.action !== 'accept') return undefined;
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
