import type { Server as NodeHttpServer, ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors.js';
import { renderRefusal } from './refusal.js';

/** Options of `Listening.shutdown`. */
export interface ShutdownOptions {
  /**
   * Milliseconds between failing readiness and refusing requests, so a load
   * balancer notices and sends traffic elsewhere; requests are served
   * normally meanwhile. Default 0.
   */
  readonly drainDelayMs?: number;
  /**
   * Milliseconds, after the drain delay, during which the server keeps
   * accepting connections and keeps kept-alive ones open, but answers every
   * new request 503 with `Retry-After` and `Connection: close` instead of
   * running it; only then does it stop listening and close idle
   * connections. A request a client wrote before it saw a 503 then gets an
   * answer instead of a reset. Default 1,000: many round trips on a
   * loopback or data-centre network, enough for the requests already on the
   * wire and each client's next request on its kept-alive connection, and
   * short next to an orchestrator's grace period (30 s on Kubernetes).
   */
  readonly graceMs?: number;
  /**
   * Milliseconds, counted from when the server stops listening (after the
   * grace), that requests in flight get to finish; whatever is still open
   * then is cut. Default 10,000.
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
    graceMs: milliseconds(options?.graceMs, 1_000, 'graceMs'),
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

/** Answers 503 with `Retry-After` and `Connection: close`: a JSON-RPC error on the MCP path, text elsewhere. */
function answerShuttingDown(res: ServerResponse, mcp: boolean, retryAfterSeconds: number): void {
  const reason = 'The server is shutting down; retry shortly.';
  const rendered = renderRefusal({ status: 503, reason, retryAfterSeconds });
  const body = mcp ? rendered.body : reason;
  res
    .writeHead(503, {
      ...rendered.headers,
      'content-type': mcp ? 'application/json' : 'text/plain; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    })
    .end(body);
}

/**
 * The request lifecycle of one node:http server for a graceful shutdown:
 * which responses are in flight, whether readiness fails (`draining`),
 * whether new requests are refused (`refusing`) and whether the listener is
 * closed (`stopped`). `stop` is the one `http.close` both `close()` and
 * `shutdown()` share.
 */
export function createDrain(http: NodeHttpServer, retryAfterSeconds: number) {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let refusing = false;
  let stopped = false;
  let finished = 0;
  let cut = 0;
  let settled: (() => void) | undefined;
  let listening: Promise<void> | undefined;
  const closeIdleSoon = () => setImmediate(() => http.closeIdleConnections());

  /** New requests are refused from now on; requests in flight close their connection after their answer. */
  const refuse = () => {
    draining = true;
    refusing = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
  };

  return {
    isDraining: () => draining,
    /** Counts `res` in flight until it closes; once stopped, idle connections close after it. */
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
    /** While refusing, answers 503 with `Retry-After` and `Connection: close` (JSON-RPC on the MCP path). */
    refused(res: ServerResponse, mcp: boolean): boolean {
      if (refusing) answerShuttingDown(res, mcp, retryAfterSeconds);
      return refusing;
    },
    /** Readiness fails from now on. */
    drain(): void {
      draining = true;
    },
    refuse,
    /**
     * Refuses and stops listening; `http.close` closes the idle connections
     * too, busy ones close after their answer. Resolves once all are closed.
     */
    stop(): Promise<void> {
      refuse();
      stopped = true;
      listening ??= new Promise<void>((resolve, reject) => {
        http.close((error) => (error ? reject(error) : resolve()));
      });
      return listening;
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
