import type { AdmissionRefusal } from '../context.js';
import { ConfigurationError } from '../errors.js';
import type { Report } from './report.js';

/**
 * How admission answers when a store it reads fails: an admission guard (the
 * global kill switch's switch store) or the authenticator (the credential
 * store, live rights) rejects, throws or does not answer in time.
 */
export interface UnavailableOptions {
  /** `Retry-After` of the 503 (and `retry_after_seconds` of the JSON-RPC error); default 5 seconds. */
  readonly retryAfterSeconds?: number;
  /**
   * Most milliseconds admission waits for the admission guards, and again for the
   * authenticator; a slower answer counts as a failure. Default 5,000.
   */
  readonly timeoutMs?: number;
}

/** {@link UnavailableOptions} checked, with defaults, and where failures are reported. */
export interface Outage {
  readonly retryAfterSeconds: number;
  readonly timeoutMs: number;
  /** Where a failing or slow store is reported (the server's `onError`). */
  readonly report: Report;
  /** Time limits of this transport's admissions in flight, at `timeoutMs`. */
  readonly deadlines: Deadlines;
}

/** Waits for admission work at most the outage's `timeoutMs`. */
export interface Deadlines {
  /** `work`, or a rejection with {@link AdmissionTimeoutError} once the time limit passed. */
  within<T>(work: Promise<T>, what: string): Promise<T>;
}

/**
 * Time limits for many concurrent waits, checked by one timer that runs
 * only while something waits, instead of a timer per request: on the hot
 * path a wait costs a set entry, not a timer. A limit fires at most a
 * tick (a quarter of `ms`, at most 100 ms) late.
 */
export function createDeadlines(ms: number): Deadlines {
  type Waiting = { readonly at: number; readonly fail: () => void };
  const waiting = new Set<Waiting>();
  const tickMs = Math.max(1, Math.min(100, Math.floor(ms / 4)));
  let timer: ReturnType<typeof setInterval> | undefined;
  const sweep = () => {
    const now = Date.now();
    for (const entry of waiting) if (entry.at <= now) entry.fail();
    if (waiting.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return Object.freeze({
    within<T>(work: Promise<T>, what: string): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const entry: Waiting = {
          at: Date.now() + ms,
          fail: () => {
            waiting.delete(entry);
            reject(new AdmissionTimeoutError(what, ms));
          },
        };
        waiting.add(entry);
        if (timer === undefined) {
          timer = setInterval(sweep, tickMs);
          (timer as { unref?: () => void }).unref?.();
        }
        work.then(
          (value) => {
            waiting.delete(entry);
            resolve(value);
          },
          (error: unknown) => {
            waiting.delete(entry);
            reject(error);
          },
        );
      });
    },
  });
}

/** Default `Retry-After` while a store is down: long enough to ride out a failover, short enough to come back soon. */
export const DEFAULT_OUTAGE_RETRY_SECONDS = 5;
/** Default most milliseconds admission waits for a store. */
export const DEFAULT_ADMISSION_TIMEOUT_MS = 5_000;

/** The defaults, reporting nowhere: what {@link admit} uses when a transport passes nothing. */
export const DEFAULT_OUTAGE: Outage = Object.freeze({
  retryAfterSeconds: DEFAULT_OUTAGE_RETRY_SECONDS,
  timeoutMs: DEFAULT_ADMISSION_TIMEOUT_MS,
  report: () => undefined,
  deadlines: createDeadlines(DEFAULT_ADMISSION_TIMEOUT_MS),
});

/** Checks a transport's `unavailable` option up front; `who` names the entry point in the error. */
export function outageOf(options: UnavailableOptions | undefined, who: string, report: Report): Outage {
  const retryAfterSeconds = options?.retryAfterSeconds ?? DEFAULT_OUTAGE_RETRY_SECONDS;
  const timeoutMs = options?.timeoutMs ?? DEFAULT_ADMISSION_TIMEOUT_MS;
  if (!Number.isSafeInteger(retryAfterSeconds) || retryAfterSeconds < 1) {
    throw new ConfigurationError(`${who}: unavailable.retryAfterSeconds must be a positive integer.`);
  }
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
    throw new ConfigurationError(`${who}: unavailable.timeoutMs must be a positive integer of milliseconds.`);
  }
  return Object.freeze({ retryAfterSeconds, timeoutMs, report, deadlines: createDeadlines(timeoutMs) });
}

/** The refusal while a store is down: a 503 that names no cause. */
export function unavailableRefusal(outage: Outage): AdmissionRefusal {
  return {
    status: 503,
    reason: 'Temporarily unavailable; retry shortly.',
    retryAfterSeconds: outage.retryAfterSeconds,
  };
}

/** A store that did not answer in time; what the server's `onError` receives for it. */
export class AdmissionTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms.`);
    this.name = 'AdmissionTimeoutError';
  }
}

/**
 * Waits for `work` at most `ms`; rejects with {@link AdmissionTimeoutError}
 * beyond it. A late rejection of `work` is absorbed (the race listens to it).
 */
export async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AdmissionTimeoutError(what, ms)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
