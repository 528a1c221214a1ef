import type { Json } from '../json.js';
import { isMalformedToolsCall, MALFORMED_TOOLS_CALL, rpcIdOf } from './body.js';
import { capOutgoing, hasOversizedId, OVERSIZED_ID } from './echoes.js';
import type { Report } from './report.js';

type Deliver = (message: unknown, extra?: unknown) => void;
type Send = (message: object, options?: object) => Promise<void>;

/** A connected transport as far as screening needs it: SDK v1 and v2 transports alike. */
export interface ScreenableTransport {
  onmessage?: unknown;
  send(message: never, options?: never): Promise<void>;
}

/** The error a screened message gets instead of reaching the server, if any. */
function edgeOf(message: Json): { readonly code: number; readonly message: string } | undefined {
  if (hasOversizedId(message)) return { code: -32600, message: OVERSIZED_ID };
  if (isMalformedToolsCall(message)) return { code: -32602, message: MALFORMED_TOOLS_CALL };
  return undefined;
}

/**
 * Answers on `transport` itself, before the server it is connected to sees
 * them: a message whose id is too long to repeat (-32600, id null) and a
 * `tools/call` with malformed params (the short -32602 sentence; the SDKs
 * would answer with their validator's dump). From then on every JSON-RPC
 * error the transport sends is capped (at most 200 characters of caller
 * text, see `capRpcError`). Call it right after the server set `onmessage`
 * (`connect`, `serveStdio`); every other message passes on unchanged.
 */
export function screenIncoming(transport: ScreenableTransport, report: Report): void {
  const deliver = transport.onmessage as Deliver | undefined;
  if (typeof deliver !== 'function') return;
  capOutgoing(transport);
  const send = transport.send as unknown as Send;
  (transport as { onmessage?: Deliver }).onmessage = (message, extra) => {
    const edge = edgeOf(message as Json);
    if (!edge) return deliver(message, extra);
    const id = rpcIdOf(message as Json);
    const answer = { jsonrpc: '2.0', id, error: edge };
    send
      .call(transport, answer, id === null ? {} : { relatedRequestId: id })
      .catch((error: unknown) => report(error));
  };
}
