import { ConfigurationError } from '@gatehousejs/core';
import type { Logger } from 'pino';

/** Options of {@link startHousekeeping}. */
export interface HousekeepingOptions {
  /** How often to run; at least 1 ms. */
  readonly intervalMs: number;
  /** One round of clean-up; may reject (it is logged, never thrown). */
  readonly round: () => Promise<void>;
  readonly logger: Logger;
}

/** A running housekeeping timer. */
export interface Housekeeping {
  /** Runs one round now (waiting for a round already running), for tests and shutdown. */
  runOnce(): Promise<void>;
  /** Stops the timer and waits for a round in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `round` every `intervalMs`, off the request path: the timer is
 * unref'd (it never keeps the process alive), rounds never overlap, and a
 * failed round is logged by error type only (never its message, which may
 * carry a connection string) and tried again on the next tick.
 */
export function startHousekeeping(options: HousekeepingOptions): Housekeeping {
  const { intervalMs, round, logger } = options;
  if (!Number.isFinite(intervalMs) || intervalMs < 1) {
    throw new ConfigurationError('housekeeping: intervalMs must be a positive number of milliseconds.');
  }
  let running: Promise<void> | undefined;
  const runOnce = (): Promise<void> => {
    running ??= round()
      .catch((error: unknown) => {
        const type = error instanceof Error ? error.name : typeof error;
        logger.error({ event: 'housekeeping', error_type: type }, 'housekeeping failed');
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void runOnce(), intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
