import type { AdmissionRefusal } from '../context.js';
import { type Logger, silentLogger } from '../logging.js';
import type { Telemetry } from '../telemetry.js';
import { type RolledOver, type WindowOptions, windowed, writeLine } from './windowedLog.js';

/**
 * The admission step that refused a request; `unavailable` when a store a
 * admission guard or the authenticator reads failed or was too slow (503).
 */
export type AdmissionStep = 'guard' | 'host' | 'origin' | 'bearer' | 'credential' | 'unavailable';

/** Where a request was refused: at admission, or `request` for a client's protocol mistake (bad JSON, oversized, not JSON-RPC). */
export type RefusalStep = AdmissionStep | 'request';

/** One refused request, as admission reports it: never a token, nor any part of one. */
export interface RefusalEvent {
  /** The status answered (HTTP, or its equivalent over stdio) and a reason that names no secret. */
  readonly refusal: Pick<AdmissionRefusal, 'reason'> & { readonly status: number };
  readonly step: RefusalStep;
  readonly transport: 'http' | 'stdio';
  /** The client's address where the transport knows it (HTTP: the socket, or the host's `clientAddress`). */
  readonly clientAddress?: string | undefined;
}

/** Writes refusal lines, rate-limited; see {@link refusalLog}. */
export interface RefusalLog {
  refused(event: RefusalEvent): void;
}

/** Options of {@link refusalLog}: per client address and reason, one line a minute by default. */
export type RefusalLogOptions = WindowOptions;

const OVERFLOW = '*';

/** A refusal log that writes nothing (no logger given). */
export const silentRefusalLog: RefusalLog = Object.freeze({ refused() {} });

const keyOf = ({ refusal, step, transport, clientAddress }: RefusalEvent): string =>
  [clientAddress ?? '-', transport, refusal.status, step].join(' ');

/** 403 (a foreign Host or Origin, a forbidden credential) and a store outage are warnings; 401 and a kill switch's 503 are routine. */
const levelOfEvent = ({ refusal, step }: RefusalEvent): 'info' | 'warn' =>
  refusal.status === 403 || step === 'unavailable' ? 'warn' : 'info';

const eventName = (step: RefusalStep) => (step === 'request' ? 'protocol_error' : 'admission_refusal');

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

function suppressedRecord({ payload, suppressed, windowMs, overflow }: RolledOver<RefusalEvent>): object {
  const { refusal, step, transport, clientAddress } = payload;
  return {
    event: `${eventName(step)}_suppressed`,
    suppressed,
    window_ms: windowMs,
    ...(overflow
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
 * Logs admission refusals (401, 403, 503) at info or warn, never error: the reason,
 * the transport, the admission step and the client address, never a token.
 * At most `perWindow` lines per client address and reason (status and step)
 * per window; when a window with suppressed lines rolls over, one line says
 * how many. Memory is bounded: at most `maxKeys` pairs are tracked, expired
 * ones are swept once per window, and new pairs beyond the cap share one entry.
 * A logger that throws changes nothing about the refusal.
 */
export function refusalLog(logger: Logger, options: RefusalLogOptions = {}): RefusalLog {
  const window = windowed<RefusalEvent>(options, (rolled) => {
    const what = rolled.payload.step === 'request' ? 'protocol errors' : 'admission refusals';
    const level = rolled.overflow ? 'warn' : levelOfEvent(rolled.payload);
    writeLine(logger, level, suppressedRecord(rolled), `${rolled.suppressed} ${what} suppressed`);
  });
  return {
    refused(event) {
      if (!window.admit(keyOf(event), event)) return;
      const message = event.step === 'request' ? 'protocol error' : 'admission refusal';
      writeLine(logger, levelOfEvent(event), refusalRecord(event), message);
    },
  };
}

/**
 * The refusal log of a transport: its own `logger` option, else the
 * server's; none when that is silent. Its windows run on the server's
 * clock. Every refusal, logged or suppressed, is also counted through the
 * server's telemetry.
 */
export function refusalLogOf(
  own: Logger | undefined,
  server: {
    readonly logger: Logger;
    readonly telemetry?: Telemetry | undefined;
    readonly clock?: (() => Date) | undefined;
  },
): RefusalLog {
  const logger = own ?? server.logger;
  const clock = server.clock;
  const options = clock ? { now: () => clock().getTime() } : {};
  const log = logger === silentLogger ? silentRefusalLog : refusalLog(logger, options);
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
