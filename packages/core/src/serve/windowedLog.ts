import type { Logger } from '../logging.js';

/** How a log limits its lines: per key and window, with bounded memory. */
export interface WindowOptions {
  /** Length of one window; default one minute. */
  readonly windowMs?: number;
  /** Lines written per key in one window; default 1. */
  readonly perWindow?: number;
  /** Most keys tracked at once; default 1,000. Beyond, new keys share one entry. */
  readonly maxKeys?: number;
  /** Milliseconds since the epoch; tests pin it. */
  readonly now?: () => number;
}

/** What a window held when it rolled over with lines suppressed. */
export interface RolledOver<T> {
  /** The first payload of the window's key. */
  readonly payload: T;
  readonly suppressed: number;
  readonly windowMs: number;
  /** Whether this is the shared entry of keys beyond `maxKeys`. */
  readonly overflow: boolean;
}

/** Decides per line whether it is written now; reports each window's suppressed count as it rolls over. */
export interface Window<T> {
  /** True when a line for `key` may be written now; otherwise it is counted. */
  admit(key: string, payload: T): boolean;
}

interface Entry<T> {
  readonly payload: T;
  readonly overflow: boolean;
  readonly start: number;
  written: number;
  suppressed: number;
}

const OVERFLOW = '\u0000overflow';

/**
 * At most `perWindow` lines per key per window. When a window in which lines
 * were suppressed rolls over (on the next line for that key, or the sweep
 * that runs once per window on any line), `rolledOver` is told how many.
 * At most `maxKeys` keys are tracked; new keys beyond share one entry.
 */
export function windowed<T>(options: WindowOptions, rolledOver: (window: RolledOver<T>) => void): Window<T> {
  const windowMs = options.windowMs ?? 60_000;
  const perWindow = options.perWindow ?? 1;
  const maxKeys = options.maxKeys ?? 1_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry<T>>();
  let sweptAt = now();

  const rollOver = ({ payload, suppressed, overflow }: Entry<T>): void => {
    if (suppressed > 0) rolledOver({ payload, suppressed, windowMs, overflow });
  };
  const sweep = (at: number): void => {
    sweptAt = at;
    for (const [key, entry] of entries) {
      if (at - entry.start < windowMs) continue;
      rollOver(entry);
      entries.delete(key);
    }
  };
  const entryFor = (wanted: string, payload: T, at: number): Entry<T> => {
    let key = wanted;
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
      entry = { payload, overflow: key === OVERFLOW, start: at, written: 0, suppressed: 0 };
      entries.set(key, entry);
    }
    return entry;
  };

  return {
    admit(key, payload) {
      const at = now();
      if (at - sweptAt >= windowMs) sweep(at);
      const entry = entryFor(key, payload, at);
      if (entry.written >= perWindow) {
        entry.suppressed++;
        return false;
      }
      entry.written++;
      return true;
    },
  };
}

/** Writes one line; a logger that throws changes nothing. */
export function writeLine(
  logger: Logger,
  level: 'info' | 'warn' | 'error',
  record: object,
  message: string,
): void {
  try {
    logger[level](record, message);
  } catch {
    // logging only
  }
}
