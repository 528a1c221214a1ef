import type { Logger } from '../logging.js';
import type { ErrorFacts, OnError } from './report.js';
import { type RolledOver, type WindowOptions, windowed, writeLine } from './windowedLog.js';

/** Options of {@link errorLog}. */
export interface ErrorLogOptions extends WindowOptions {
  /** Written as `transport` on lines whose report names none, e.g. the process's one transport. */
  readonly transport?: string;
}

interface Reported {
  readonly kind: ErrorFacts['kind'];
  readonly transport: string | undefined;
  readonly type: string;
  readonly code: string | undefined;
}

/** A short identifier such as `ECONNREFUSED`, `SQLITE_BUSY` or `store_unavailable`; anything else is left out. */
const CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,47}$/;
/** An error class name as written in code; anything else is logged as `Error`. */
const NAME = /^[A-Za-z_$][\w$]{0,63}$/;

function reportedOf(error: Error, kind: ErrorFacts['kind'], transport: string | undefined): Reported {
  const name = typeof error?.name === 'string' && NAME.test(error.name) ? error.name : 'Error';
  const code = (error as { code?: unknown })?.code;
  return {
    kind,
    transport,
    type: name,
    code: typeof code === 'string' && CODE.test(code) ? code : undefined,
  };
}

const EVENTS = { outage: 'store_outage', fault: 'transport_error' } as const;
const LEVELS = { outage: 'warn', fault: 'error' } as const;
const MESSAGES = { outage: 'store outage', fault: 'transport error' } as const;

/**
 * The server's `onError` as log lines an operator can live with: a tool
 * call's own failure at error, once per call, with its correlation id (the
 * only thing its caller saw); a store outage (`kind: 'outage'`; the clients
 * got 503) at warn, and a transport's fault at error, each at most
 * `perWindow` lines (default 1) per kind, transport, error type and code per
 * window (default one minute), then one line saying how many were
 * suppressed. A line holds the error's class name and a short `code`
 * (`ECONNREFUSED`), never its message, stack or cause, which may name hosts,
 * paths or connection strings. A logger that throws changes nothing.
 *
 * @example
 * createServer({ …, onError: errorLog(logger) });
 */
export function errorLog(logger: Logger, options: ErrorLogOptions = {}): OnError {
  const record = ({ kind, type, code, transport }: Reported) => ({
    event: EVENTS[kind],
    ...(transport === undefined ? {} : { transport }),
    error_type: type,
    ...(code === undefined ? {} : { error_code: code }),
  });
  const window = windowed<Reported>(options, (rolled: RolledOver<Reported>) => {
    const { kind, type, transport } = rolled.payload;
    const line = {
      event: `${EVENTS[kind]}_suppressed`,
      ...(transport === undefined ? {} : { transport }),
      suppressed: rolled.suppressed,
      window_ms: rolled.windowMs,
      ...(rolled.overflow
        ? {}
        : { error_type: type, ...(rolled.payload.code ? { error_code: rolled.payload.code } : {}) }),
    };
    writeLine(logger, LEVELS[kind], line, `${rolled.suppressed} ${MESSAGES[kind]} lines suppressed`);
  });
  return function logError(error, facts) {
    const kind = facts?.kind === 'outage' ? 'outage' : 'fault';
    const reported = reportedOf(error, kind, facts?.transport ?? options.transport);
    if (facts?.correlationId !== undefined && kind === 'fault') {
      const { type, code } = reported;
      const line = {
        event: 'internal_error',
        correlation_id: facts.correlationId,
        error_type: type,
        ...(code ? { error_code: code } : {}),
      };
      writeLine(logger, 'error', line, 'internal error');
      return;
    }
    const key = `${kind} ${reported.transport ?? ''} ${reported.type} ${reported.code ?? ''}`;
    if (!window.admit(key, reported)) return;
    writeLine(logger, LEVELS[kind], record(reported), MESSAGES[kind]);
  };
}
