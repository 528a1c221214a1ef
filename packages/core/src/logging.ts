/**
 * The logger Gatehouse writes to: the method shape of pino (`logger.info(obj, msg)`),
 * so a pino instance can be passed as it is.
 */
export interface Logger {
  info(record: object, message?: string): void;
  warn(record: object, message?: string): void;
  error(record: object, message?: string): void;
}

/** A logger that drops everything; the default. */
export const silentLogger: Logger = Object.freeze({
  info() {},
  warn() {},
  error() {},
});

/**
 * The one line Gatehouse logs per `tools/call` (I17): tool, outcome,
 * duration, public ids and correlation id. Never arguments, never results.
 */
export interface CallLogRecord {
  readonly event: 'tools/call';
  readonly tool: string;
  readonly outcome: 'ok' | 'replayed' | 'preview' | 'refused' | 'internal_error';
  readonly code?: string;
  readonly duration_ms: number;
  readonly correlation_id: string;
  readonly connection_id: string;
  readonly tenant_id: string;
  readonly object_ids?: readonly string[];
}
