import type { Logger } from '../logging.js';
import type { ErrorReport, OnError } from './report.js';
import { type RolledOver, type WindowOptions, windowed, writeLine } from './windowedLog.js';

/** Options of {@link errorLog}. */
export interface ErrorLogOptions extends WindowOptions {
  /** Written as `transport` on every line, e.g. `http` or `stdio`. */
  readonly transport?: string;
}

interface Reported {
  readonly kind: ErrorReport['kind'];
  readonly type: string;
  readonly code: string | undefined;
}

/** A short identifier such as `ECONNREFUSED`, `SQLITE_BUSY` or `store_unavailable`; anything else is left out. */
const CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,47}$/;
/** An error class name as written in code; anything else is logged as `Error`. */
const NAME = /^[A-Za-z_$][\w$]{0,63}$/;

function reportedOf(error: Error, kind: ErrorReport['kind']): Reported {
  const name = typeof error?.name === 'string' && NAME.test(error.name) ? error.name : 'Error';
  const code = (error as { code?: unknown })?.code;
  return { kind, type: name, code: typeof code === 'string' && CODE.test(code) ? code : undefined };
}

const EVENTS = { outage: 'store_outage', fault: 'transport_error' } as const;
const LEVELS = { outage: 'warn', fault: 'error' } as const;
const MESSAGES = { outage: 'store outage', fault: 'transport error' } as const;

/**
 * An `onerror` for every transport that writes to `logger`: a store outage
 * behind admission (`kind: 'outage'`; the clients got 503) at warn, a fault
 * of the server itself at error. A line holds the error's class name and a
 * short `code` (`ECONNREFUSED`), never its message, stack or cause, which
 * may name hosts, paths or connection strings. At most `perWindow` lines
 * (default 1) per kind, error type and code per window (default one minute); when
 * a window with suppressed lines rolls over, one line says how many. A
 * logger that throws changes nothing.
 *
 * @example
 * await listen(server, { onerror: errorLog(logger, { transport: 'http' }) });
 */
export function errorLog(logger: Logger, options: ErrorLogOptions = {}): OnError {
  const transport = options.transport === undefined ? {} : { transport: options.transport };
  const record = ({ kind, type, code }: Reported) => ({
    event: EVENTS[kind],
    ...transport,
    error_type: type,
    ...(code === undefined ? {} : { error_code: code }),
  });
  const window = windowed<Reported>(options, (rolled: RolledOver<Reported>) => {
    const { kind, type } = rolled.payload;
    const line = {
      event: `${EVENTS[kind]}_suppressed`,
      ...transport,
      suppressed: rolled.suppressed,
      window_ms: rolled.windowMs,
      ...(rolled.overflow
        ? {}
        : { error_type: type, ...(rolled.payload.code ? { error_code: rolled.payload.code } : {}) }),
    };
    writeLine(logger, LEVELS[kind], line, `${rolled.suppressed} ${MESSAGES[kind]} lines suppressed`);
  });
  return function logError(error, report) {
    const reported = reportedOf(error, report?.kind === 'outage' ? 'outage' : 'fault');
    if (!window.admit(`${reported.kind} ${reported.type} ${reported.code ?? ''}`, reported)) return;
    writeLine(logger, LEVELS[reported.kind], record(reported), MESSAGES[reported.kind]);
  };
}
