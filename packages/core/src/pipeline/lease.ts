import type { Lease } from '../contract/guard.js';
import { ConfigurationError } from '../errors.js';

export type { Lease };

/** The default lease of the claims core holds while a call runs: a crashed holder's claim lapses within it. */
export const DEFAULT_LEASE_MS = 10_000;

/**
 * A claim's lease from a guard factory's options: `leaseMs` (default
 * {@link DEFAULT_LEASE_MS}) and `renewMs` (default a fifth of it), each a
 * positive integer of milliseconds, the renewal shorter than the lease.
 * `createServer` checks too that the lease outlasts a renewal plus the unit
 * of work's longest wait for a connection or lock.
 */
export function leaseOf(
  who: string,
  options: { readonly leaseMs?: number; readonly renewMs?: number },
): Lease {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const renewMs = options.renewMs ?? Math.floor(leaseMs / 5);
  for (const [name, value] of [
    ['leaseMs', leaseMs],
    ['renewMs', renewMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647)
      throw new ConfigurationError(`${who}: ${name} must be a positive integer of milliseconds.`);
  }
  if (leaseMs <= renewMs)
    throw new ConfigurationError(`${who}: leaseMs (${leaseMs} ms) must exceed renewMs (${renewMs} ms).`);
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
