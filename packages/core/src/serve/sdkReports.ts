import type { Report } from './report.js';

/**
 * JSON-RPC codes of a client's mistakes: parse error, invalid request,
 * method not found, invalid params, header mismatch (-32020), a missing
 * client capability (-32021), an unsupported protocol version (-32022).
 */
const CLIENT_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32020, -32021, -32022]);

/**
 * How the SDK words what it reports after answering a client's mistake
 * itself (a 4xx, or a JSON-RPC error on stdio): rejected requests, media
 * types, malformed bodies, unknown methods, stray responses.
 */
const CLIENT_MESSAGES =
  /^(Rejected inbound request|Rejected 2025-era request|Unsupported Media Type|Not Acceptable|Parse error|Invalid Request|Bad Request|Method not allowed|Conflict:|Session not found|Unknown message type|Received a response for an unknown message ID|Received a progress notification for an unknown token|Era mismatch on inbound|Dropped inbound request|Discarded a JSON-RPC response|Discarded a notification)/;

/**
 * Whether an error the SDK reports is a client's mistake it already
 * answered (an SDK `ProtocolError` with a client-error code, or one of its
 * fixed sentences for a refused request), not a fault of the server.
 * Anything unknown counts as a fault, so a new kind of failure is never hidden.
 */
export function isClientMistake(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && CLIENT_CODES.has(code)) return true;
  return typeof error.message === 'string' && CLIENT_MESSAGES.test(error.message);
}

/**
 * The `onerror` handed to the SDK (`createMcpHandler`, `serveStdio`): the
 * server's `onError` hears of the server's faults only (`kind: 'fault'`); a
 * client's mistake the SDK answered itself is not the server's error (the
 * HTTP transport logs its answer to the refusal log instead).
 */
export function sdkOnerror(report: Report): (error: Error) => void {
  return (error) => {
    if (error instanceof Error && isClientMistake(error)) return;
    report(error);
  };
}
