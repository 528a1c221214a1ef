import { ConfigurationError } from '../errors.js';

/** How long a claim core holds lasts, and how often its holder renews it. */
export interface Lease {
  readonly leaseMs: number;
  readonly renewMs: number;
}

/** The default lease of the claims core holds while a call runs: a crashed holder's claim lapses within it. */
export const DEFAULT_LEASE_MS = 10_000;

/**
 * Checks a claim's lease against its renewal interval and the unit of
 * work's longest wait: a renewal started on time that waits its longest
 * for a connection or a lock must still land before the lease lapses, so
 * `leaseMs > renewMs + maxWaitMs`. `renewMs` defaults to a fifth of the lease.
 */
export function leaseOf(
  who: string,
  options: { readonly leaseMs?: number; readonly renewMs?: number },
  maxWaitMs = 0,
): Lease {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const renewMs = options.renewMs ?? Math.floor(leaseMs / 5);
  for (const [name, value] of [
    ['leaseMs', leaseMs],
    ['renewMs', renewMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647)
      throw new ConfigurationError(
        `createServer: ${who}.${name} must be a positive integer of milliseconds.`,
      );
  }
  if (leaseMs <= renewMs + maxWaitMs) {
    throw new ConfigurationError(
      `createServer: ${who}.leaseMs (${leaseMs} ms) must exceed ${who}.renewMs (${renewMs} ms) plus the unit of work's longest wait for a connection or lock (maxWaitMs, ${maxWaitMs} ms), or a renewal that waits its longest lands after the lease lapsed. Raise leaseMs, or lower renewMs or the wait.`,
    );
  }
  return Object.freeze({ leaseMs, renewMs });
}

/**
 * Renews a claim every `renewMs` while its call runs (a heartbeat), so a
 * short lease does not lapse under a slow call. The next renewal is timed
 * from the start of the last one and never overlaps it; a renewal that
 * answers false (the claim is gone) ends the heartbeat, one that fails (the
 * store is down) is tried again on time. Returns the function that stops it.
 * Timers are unref'd: a heartbeat never keeps a process alive.
 */
export function heartbeat(renew: () => Promise<boolean>, renewMs: number): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(beat, ms);
    (timer as { unref?: () => void }).unref?.();
  };
  const next = (started: number) => schedule(Math.max(0, started + renewMs - Date.now()));
  function beat(): void {
    const started = Date.now();
    let renewal: Promise<boolean>;
    try {
      renewal = renew();
    } catch {
      next(started);
      return;
    }
    renewal.then(
      (held) => {
        if (held) next(started);
      },
      () => next(started),
    );
  }
  schedule(renewMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
