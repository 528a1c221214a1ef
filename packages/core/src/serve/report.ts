/**
 * What the server's `onError` is told besides the error: `outage` when a
 * store admission reads (an admission guard's, the authenticator's) failed
 * or was too slow, so the client got a 503; `fault` for anything else that
 * went wrong in the server; the transport that met it, and the correlation
 * id of the tool call it failed (the only thing that call's caller saw). A
 * store that fails inside a call is the call's answer (`store_unavailable`
 * with a retry hint), not a report; a client's protocol mistakes are never
 * reported either: they go to the refusal log.
 */
export interface ErrorFacts {
  readonly kind: 'outage' | 'fault';
  readonly transport?: 'http' | 'stdio' | undefined;
  readonly correlationId?: string | undefined;
}

/** The one error hook of a server, `createServer({ onError })`: every transport and every call report to it. */
export type OnError = (error: Error, facts: ErrorFacts) => void;

/** How a transport reports an unexpected error: to the server's `onError`, with its kind. Never throws. */
export type Report = (error: unknown, kind?: ErrorFacts['kind']) => void;

/** Hands an unexpected error to `onError`; a throwing hook changes nothing. */
export function reportTo(onError: OnError | undefined, error: unknown, facts: ErrorFacts): void {
  try {
    onError?.(error instanceof Error ? error : new Error(String(error)), facts);
  } catch {
    // reporting only
  }
}

/** The report function of one transport on a server with `onError`. */
export function reporter(
  server: { readonly onError?: OnError | undefined },
  transport: 'http' | 'stdio' | undefined,
): Report {
  const facts = {
    outage: Object.freeze({ kind: 'outage' as const, transport }),
    fault: Object.freeze({ kind: 'fault' as const, transport }),
  };
  return (error, kind = 'fault') => reportTo(server.onError, error, facts[kind]);
}

/** Refuses a transport option that moved to the server (`createServer({ onError })`). */
export function refuseMovedOnerror(
  options: object | undefined,
  who: string,
  error: (message: string) => Error,
): void {
  if (options && 'onerror' in options && (options as { onerror?: unknown }).onerror !== undefined)
    throw error(
      `${who}: onerror moved to the server: createServer({ onError }) hears every transport and every call (see errorLog).`,
    );
}
