/**
 * What `onerror` is told besides the error: `outage` when a store admission
 * reads (a gate check, the authenticator) failed or was too slow, so the
 * client got a 503; `fault` for anything else that went wrong in the server.
 * A client's protocol mistakes are never reported: they go to the refusal log.
 */
export interface ErrorReport {
  readonly kind: 'outage' | 'fault';
}

/** The `onerror` option of every transport; a callback that takes only the error fits too. */
export type OnError = (error: Error, report: ErrorReport) => void;

const REPORTS: Readonly<Record<ErrorReport['kind'], ErrorReport>> = Object.freeze({
  outage: Object.freeze({ kind: 'outage' }),
  fault: Object.freeze({ kind: 'fault' }),
});

/** Hands an unexpected error to a reporting callback; a throwing callback changes nothing. */
export function reportTo(
  onerror: OnError | undefined,
  error: unknown,
  kind: ErrorReport['kind'] = 'fault',
): void {
  try {
    onerror?.(error instanceof Error ? error : new Error(String(error)), REPORTS[kind]);
  } catch {
    // reporting only
  }
}
