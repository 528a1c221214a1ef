import type { Json } from '../json.js';
import { isMalformedToolsCall, MALFORMED_TOOLS_CALL, rpcIdOf } from './body.js';
import { reportTo } from './report.js';

type Deliver = (message: unknown, extra?: unknown) => void;
type Send = (message: object, options?: object) => Promise<void>;

/** A connected transport as far as screening needs it: SDK v1 and v2 transports alike. */
export interface ScreenableTransport {
  onmessage?: unknown;
  send(message: never, options?: never): Promise<void>;
}

/**
 * Answers a `tools/call` with malformed params on `transport` itself, with
 * the short -32602 sentence, before the server it is connected to sees it
 * (the SDKs would answer with their validator's dump). Call it right after
 * the server set `onmessage` (`connect`, `serveStdio`); every other message
 * passes on unchanged.
 */
export function screenIncoming(transport: ScreenableTransport, onerror?: (error: Error) => void): void {
  const deliver = transport.onmessage as Deliver | undefined;
  if (typeof deliver !== 'function') return;
  const send = transport.send as unknown as Send;
  (transport as { onmessage?: Deliver }).onmessage = (message, extra) => {
    if (!isMalformedToolsCall(message as Json)) return deliver(message, extra);
    const id = rpcIdOf(message as Json);
    const answer = { jsonrpc: '2.0', id, error: { code: -32602, message: MALFORMED_TOOLS_CALL } };
    send
      .call(transport, answer, id === null ? {} : { relatedRequestId: id })
      .catch((error: unknown) => reportTo(onerror, error));
  };
}
