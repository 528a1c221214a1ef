import type { Server as NodeHttpServer, ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors.js';
import { renderRefusal } from './refusal.js';

/** Options of `Listening.shutdown`. */
export interface ShutdownOptions {
  /**
   * Milliseconds between failing readiness and no longer accepting
   * connections, so a load balancer notices and sends traffic elsewhere;
   * requests are served normally meanwhile. Default 0.
   */
  readonly drainDelayMs?: number;
  /**
   * Milliseconds, counted from when the server stops accepting, that
   * requests in flight get to finish; whatever is still open then is cut.
   * Default 10,000.
   */
  readonly deadlineMs?: number;
}

/** What a graceful shutdown did with the requests in flight. */
export interface ShutdownReport {
  /** Requests answered completely after the shutdown began. */
  readonly finished: number;
  /** Requests still open at the deadline, whose connections were cut. */
  readonly cut: number;
}

const MAX_TIMER_MS = 2_147_483_647;

function milliseconds(value: number | undefined, fallback: number, name: string): number {
  const ms = value ?? fallback;
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_TIMER_MS) {
    throw new ConfigurationError(`shutdown: ${name} must be a non-negative integer of milliseconds.`);
  }
  return ms;
}

/** Checks `shutdown`'s options up front. */
export function checkShutdown(options: ShutdownOptions | undefined): Required<ShutdownOptions> {
  return {
    drainDelayMs: milliseconds(options?.drainDelayMs, 0, 'drainDelayMs'),
    deadlineMs: milliseconds(options?.deadlineMs, 10_000, 'deadlineMs'),
  };
}

/** A timer that `cancel` ends early; resolves either way. */
export function pause(ms: number): { readonly done: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake = () => {};
  const done = new Promise<void>((resolve) => {
    wake = resolve;
    timer = setTimeout(resolve, ms);
  });
  return {
    done,
    cancel() {
      clearTimeout(timer);
      wake();
    },
  };
}

/**
 * The request lifecycle of one node:http server for a graceful shutdown:
 * which responses are in flight, whether readiness fails (`draining`), and
 * whether new requests are refused (`stopped`). `stopListening` is the one
 * `http.close` both `close()` and `shutdown()` share.
 */
export function createDrain(http: NodeHttpServer, retryAfterSeconds: number) {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let stopped = false;
  let finished = 0;
  let cut = 0;
  let settled: (() => void) | undefined;
  let listening: Promise<void> | undefined;
  const closeIdleSoon = () => setImmediate(() => http.closeIdleConnections());

  const stopListening = () =>
    (listening ??= new Promise<void>((resolve, reject) => {
      http.close((error) => (error ? reject(error) : resolve()));
    }));

  return {
    isDraining: () => draining,
    stopListening,
    /** Counts `res` in flight until it closes; once stopped, its connection closes after it. */
    track(res: ServerResponse): void {
      inFlight.add(res);
      res.once('close', () => {
        inFlight.delete(res);
        if (draining && res.writableFinished) finished++;
        if (!stopped) return;
        closeIdleSoon();
        if (inFlight.size === 0) settled?.();
      });
    },
    /** Once stopped, answers 503 with `Retry-After` and `Connection: close` (JSON-RPC on the MCP path). */
    refused(res: ServerResponse, mcp: boolean): boolean {
      if (!stopped) return false;
      const reason = 'The server is shutting down; retry shortly.';
      const rendered = renderRefusal({ status: 503, reason, retryAfterSeconds });
      const body = mcp ? rendered.body : reason;
      const type = mcp ? 'application/json' : 'text/plain; charset=utf-8';
      const length = String(Buffer.byteLength(body));
      const headers = {
        ...rendered.headers,
        'content-type': type,
        'content-length': length,
        connection: 'close',
      };
      res.writeHead(503, headers).end(body);
      return true;
    },
    /** Readiness fails from now on. */
    drain(): void {
      draining = true;
    },
    /** Stops accepting: new requests are refused, idle connections close, busy ones close after their answer. */
    stop(): void {
      draining = true;
      stopped = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      http.closeIdleConnections();
    },
    /** Waits until nothing is in flight or `ms` passed. */
    async settle(ms: number): Promise<void> {
      const deadline = pause(ms);
      if (inFlight.size === 0) deadline.cancel();
      settled = deadline.cancel;
      await deadline.done;
    },
    /** Cuts every open connection; what is in flight counts as cut. */
    cutAll(): void {
      cut += inFlight.size;
      http.closeAllConnections();
    },
    report: (): ShutdownReport => ({ finished, cut }),
  };
}

/** One server's drain, as `listen` uses it. */
export type Drain = ReturnType<typeof createDrain>;
