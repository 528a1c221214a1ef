import type { RequestSpan } from '../telemetry.js';
import type { Report } from './report.js';

/** How one SDK line's adapter tells its own protocol errors from anything else. */
export interface RpcErrors {
  /** Errors that reach the client as they are (admission refusals, the SDK's own protocol errors). */
  readonly passes: (error: unknown) => boolean;
  /** The bare JSON-RPC internal error that replaces anything else, naming no cause. */
  readonly internal: () => Error;
  /** The JSON-RPC code of an error that passes (for the span). */
  readonly codeOf: (error: unknown) => number;
}

/** Runs one handler as {@link served} describes. */
export type Served = <T>(span: RequestSpan | undefined, work: () => Promise<T>) => Promise<T>;

/**
 * The one wrapper of every SDK adapter's `tools/list` and `tools/call`
 * handler (SDK v2 and v1 alike): only the adapter's protocol errors reach
 * the client; anything else thrown (a failing authenticator, a visibility
 * guard that throws, a host handler's bug) is reported to the server's
 * `onError` and answered as a bare internal error; and the request's span,
 * when it has one, is ended here as a JSON-RPC error (the stage runner ends
 * it for every call that has an answer; a span ends once).
 */
export function served(errors: RpcErrors, report: Report): Served {
  return async (span, work) => {
    try {
      return await work();
    } catch (error) {
      const passes = errors.passes(error);
      if (!passes) report(error);
      span?.end({ outcome: 'rpc_error', rpcErrorCode: passes ? errors.codeOf(error) : -32603 });
      throw passes ? error : errors.internal();
    }
  };
}
