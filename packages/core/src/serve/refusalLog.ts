import type { GateRefusal } from '../context.js';
import { type Logger, silentLogger } from '../logging.js';
import type { Telemetry } from '../telemetry.js';

/**
 * The admission step that refused a request; `unavailable` when a store a
 * gate check or the authenticator reads failed or was too slow (503).
 */
export type AdmissionStep = 'gate' | 'host' | 'origin' | 'bearer' | 'credential' | 'unavailable';

/** Where a request was refused: at admission, or `request` for a client's protocol mistake (bad JSON, oversized, not JSON-RPC). */
export type RefusalStep = AdmissionStep | 'request';

/** One refused request, as admission reports it: never a token, nor any part of one. */
export interface RefusalEvent {
  /** The status answered (HTTP, or its equivalent over stdio) and a reason that names no secret. */
  readonly refusal: Pick<GateRefusal, 'reason'> & { readonly status: number };
  readonly step: RefusalStep;
  readonly transport: 'http' | 'stdio';
  /** The client's address where the transport knows it (HTTP: the socket, or the host's `clientAddress`). */
  readonly clientAddress?: string | undefined;
}

/** Writes refusal lines, rate-limited; see {@link refusalLog}. */
export interface RefusalLog {
  refused(event: RefusalEvent): void;
}

/** Options of {@link refusalLog}. */
export interface RefusalLogOptions {
  /** Length of one window; default one minute. */
  readonly windowMs?: number;
  /** Lines written per client address and reason in one window; default 1. */
  readonly perWindow?: number;
  /** Most (address, reason) pairs tracked at once; default 1,000. Beyond, new pairs share one entry. */
  readonly maxKeys?: number;
  /** Milliseconds since the epoch; tests pin it. */
  readonly now?: () => number;
}

interface Entry {
  readonly event: RefusalEvent;
  readonly overflow: boolean;
  start: number;
  written: number;
  suppressed: number;
}

const OVERFLOW = '*';

/** A refusal log that writes nothing (no logger given). */
export const silentRefusalLog: RefusalLog = Object.freeze({ refused() {} });

const keyOf = ({ refusal, step, transport, clientAddress }: RefusalEvent): string =>
  [clientAddress ?? '-', transport, refusal.status, step].join(' ');

/** 403 (a foreign Host or Origin, a forbidden credential) and a store outage are warnings; 401 and a kill switch's 503 are routine. */
const levelOfEvent = ({ refusal, step }: RefusalEvent): 'info' | 'warn' =>
  refusal.status === 403 || step === 'unavailable' ? 'warn' : 'info';
const levelOf = (entry: Entry): 'info' | 'warn' => (entry.overflow ? 'warn' : levelOfEvent(entry.event));

const eventName = (step: RefusalStep) => (step === 'request' ? 'protocol_error' : 'gate_refusal');

function refusalRecord({ refusal, step, transport, clientAddress }: RefusalEvent): object {
  return {
    event: eventName(step),
    transport,
    status: refusal.status,
    step,
    reason: refusal.reason,
    ...(clientAddress === undefined ? {} : { client_address: clientAddress }),
  };
}

function suppressedRecord(entry: Entry, windowMs: number): object {
  const { refusal, step, transport, clientAddress } = entry.event;
  return {
    event: `${eventName(entry.event.step)}_suppressed`,
    suppressed: entry.suppressed,
    window_ms: windowMs,
    ...(entry.overflow
      ? { client_address: OVERFLOW }
      : {
          transport,
          status: refusal.status,
          step,
          ...(clientAddress === undefined ? {} : { client_address: clientAddress }),
        }),
  };
}

/**
 * Logs gate refusals (401, 403, 503) at info or warn, never error: the reason,
 * the transport, the admission step and the client address, never a token.
 * At most `perWindow` lines per client address and reason (status and step)
 * per window; when a window with suppressed lines rolls over, one line says
 * how many. Memory is bounded: at most `maxKeys` pairs are tracked, expired
 * ones are swept once per window, and new pairs beyond the cap share one entry.
 * A logger that throws changes nothing about the refusal.
 */
export function refusalLog(logger: Logger, options: RefusalLogOptions = {}): RefusalLog {
  const windowMs = options.windowMs ?? 60_000;
  const perWindow = options.perWindow ?? 1;
  const maxKeys = options.maxKeys ?? 1_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let sweptAt = now();

  const write = (level: 'info' | 'warn', record: object, message: string): void => {
    try {
      logger[level](record, message);
    } catch {
      // logging only
    }
  };
  const rollOver = (entry: Entry): void => {
    if (entry.suppressed > 0) {
      write(
        levelOf(entry),
        suppressedRecord(entry, windowMs),
        `${entry.suppressed} ${entry.event.step === 'request' ? 'protocol errors' : 'gate refusals'} suppressed`,
      );
    }
  };
  const sweep = (at: number): void => {
    sweptAt = at;
    for (const [key, entry] of entries) {
      if (at - entry.start < windowMs) continue;
      rollOver(entry);
      entries.delete(key);
    }
  };
  const entryFor = (event: RefusalEvent, at: number): Entry => {
    let key = keyOf(event);
    let entry = entries.get(key);
    if (!entry && entries.size >= maxKeys) {
      key = OVERFLOW;
      entry = entries.get(key);
    }
    if (entry && at - entry.start >= windowMs) {
      rollOver(entry);
      entry = undefined;
    }
    if (!entry) {
      entry = { event, overflow: key === OVERFLOW, start: at, written: 0, suppressed: 0 };
      entries.set(key, entry);
    }
    return entry;
  };

  return {
    refused(event) {
      const at = now();
      if (at - sweptAt >= windowMs) sweep(at);
      const entry = entryFor(event, at);
      if (entry.written >= perWindow) {
        entry.suppressed++;
        return;
      }
      entry.written++;
      write(
        levelOfEvent(event),
        refusalRecord(event),
        event.step === 'request' ? 'protocol error' : 'gate refusal',
      );
    },
  };
}

/**
 * The refusal log of a transport: its own `logger` option, else the
 * server's; none when that is silent. Every refusal, logged or suppressed,
 * is also counted through the server's telemetry.
 */
export function refusalLogOf(
  own: Logger | undefined,
  server: { readonly logger: Logger; readonly telemetry?: Telemetry | undefined },
): RefusalLog {
  const logger = own ?? server.logger;
  const log = logger === silentLogger ? silentRefusalLog : refusalLog(logger);
  const count = server.telemetry?.refused?.bind(server.telemetry);
  if (!count) return log;
  return {
    refused(event) {
      log.refused(event);
      try {
        count({ status: event.refusal.status, step: event.step, transport: event.transport });
      } catch {
        // telemetry only
      }
    },
  };
}
