import type { RequestEnd, RequestFacts } from '../telemetry.js';
import type { Attributes } from './api.js';

/** Attribute keys: the MCP semantic conventions' first, then Gatehouse's own. */
export const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  toolName: 'gen_ai.tool.name',
  operationName: 'gen_ai.operation.name',
  requestId: 'jsonrpc.request.id',
  transport: 'network.transport',
  errorType: 'error.type',
  rpcStatusCode: 'rpc.response.status_code',
  outcome: 'gatehouse.outcome',
  errorCode: 'gatehouse.error.code',
  correlationId: 'gatehouse.correlation_id',
  tenantId: 'gatehouse.tenant.id',
  connectionId: 'gatehouse.connection.id',
  stage: 'gatehouse.stage',
  decision: 'gatehouse.decision',
  approvalOutcome: 'gatehouse.approval.outcome',
  refusalStep: 'gatehouse.refusal.step',
  refusalStatus: 'gatehouse.refusal.status',
} as const;

/** `error.type` of a tool result with `isError: true`, as the conventions name it. */
export const TOOL_ERROR = 'tool_error';
/** The conventions' fallback `error.type` when a JSON-RPC error carries no code. */
const OTHER_ERROR = '_OTHER';
/** A JSON-RPC id is the client's text: recorded, but never more than this. */
const MAX_REQUEST_ID = 128;

/** What an MCP tool name may hold (letters, digits, `_`, `-`, `.`; 1 to 128 characters). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** The tool of a call whose name is not one of the server's. */
export const UNKNOWN_TOOL = '(unknown)';

/**
 * The tool name to record: the requested one, `(unknown)` when there is
 * none or the call was refused as `unknown_tool`, so a client cannot put
 * text of its own into span names and metric attributes.
 */
export function toolNameOf(facts: RequestFacts, code?: string): string {
  if (code === 'unknown_tool' || facts.tool === undefined || !TOOL_NAME.test(facts.tool)) return UNKNOWN_TOOL;
  return facts.tool;
}

/** `tools/call create_booking`, or `tools/list`. */
export function spanNameOf(facts: RequestFacts, code?: string): string {
  return facts.method === 'tools/call' ? `tools/call ${toolNameOf(facts, code)}` : facts.method;
}

/** `network.transport` of a Gatehouse transport, as the conventions name it. */
export const transportOf = (transport: 'http' | 'stdio'): string => (transport === 'stdio' ? 'pipe' : 'tcp');

/** What identifies the operation: the span's start attributes and the duration's dimensions. */
export function operationAttributes(facts: RequestFacts, code?: string): Attributes {
  const attributes: Attributes = {
    [ATTR.method]: facts.method,
    [ATTR.transport]: transportOf(facts.transport),
  };
  if (facts.method === 'tools/call') {
    attributes[ATTR.toolName] = toolNameOf(facts, code);
    attributes[ATTR.operationName] = 'execute_tool';
  }
  if (facts.protocolVersion) attributes[ATTR.protocolVersion] = facts.protocolVersion;
  return attributes;
}

/** The start attributes of a request span: the operation's, and the JSON-RPC id. */
export function requestAttributes(facts: RequestFacts): Attributes {
  const attributes = operationAttributes(facts);
  if (facts.requestId !== undefined && facts.requestId !== null) {
    attributes[ATTR.requestId] = String(facts.requestId).slice(0, MAX_REQUEST_ID);
  }
  return attributes;
}

/**
 * `error.type` and `rpc.response.status_code` of an ending: `tool_error` for
 * a tool result with `isError` (refused, internal error), the JSON-RPC code
 * for an error response; nothing for a result that is not an error.
 */
export function errorAttributes(end: RequestEnd): Attributes {
  if (end.outcome === 'refused' || end.outcome === 'internal_error') return { [ATTR.errorType]: TOOL_ERROR };
  if (end.outcome !== 'rpc_error') return {};
  const code = end.rpcErrorCode === undefined ? OTHER_ERROR : String(end.rpcErrorCode);
  return end.rpcErrorCode === undefined
    ? { [ATTR.errorType]: code }
    : { [ATTR.errorType]: code, [ATTR.rpcStatusCode]: code };
}

/** Everything a request span gets when it ends. */
export function endAttributes(end: RequestEnd): Attributes {
  const attributes: Attributes = { [ATTR.outcome]: end.outcome, ...errorAttributes(end) };
  const code = errorCodeOf(end);
  if (code) attributes[ATTR.errorCode] = code;
  if (end.correlationId) attributes[ATTR.correlationId] = end.correlationId;
  if (end.tenantId) attributes[ATTR.tenantId] = end.tenantId;
  if (end.connectionId) attributes[ATTR.connectionId] = end.connectionId;
  return attributes;
}

/** The Gatehouse error code of a tool error result, when the call ended in one. */
export function errorCodeOf(end: RequestEnd): string | undefined {
  if (end.outcome === 'refused') return end.code;
  if (end.outcome === 'internal_error') return end.code ?? 'internal_error';
  return undefined;
}
