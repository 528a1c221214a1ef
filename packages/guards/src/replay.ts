import {
  type ClaimDecision,
  type ClaimGuard,
  ConfigurationError,
  defineGuard,
  deny,
  digest,
  type GuardArgument,
  type JsonObject,
  type ReplayBegin,
  type ReplayStore,
  type ToolCall,
} from '@gatehousejs/core';
import { heartbeat, leaseOf } from '@gatehousejs/core/internal';

/** Options of {@link replayGuard}. */
export interface ReplayGuardOptions {
  readonly store: ReplayStore;
  /**
   * How long a result answers an identical call sent without `idempotency_key`; default
   * 5 minutes: long enough for a client to re-send a lost request, short enough that a
   * deliberate repeat (A→B→A) runs again.
   */
  readonly windowMs?: number;
  /** How long a result answers a call re-sent with the same `idempotency_key`; default 24 hours. */
  readonly keyedWindowMs?: number;
  /**
   * How long a claim lasts without a renewal; default 10 s. The call holding
   * it renews it every `renewMs` while it runs, so a slow call keeps its
   * claim and a crashed one's lapses within the lease: a re-send then runs.
   * A call whose claim lapsed anyway (renewals could not land) may be taken
   * over by a re-send, and then cannot complete: its fencing token is no
   * longer current, so its unit of work rolls back. Must exceed `renewMs`
   * plus the unit of work's `maxWaitMs` (checked when the server is built).
   */
  readonly leaseMs?: number;
  /** How often a running call renews its claim; default a fifth of `leaseMs`. */
  readonly renewMs?: number;
  /** How long a duplicate waits for the first call's result before `still_running`; default 0 (answer at once). */
  readonly waitMs?: number;
  /** Poll interval while waiting; default 20 ms. */
  readonly pollMs?: number;
}

/** The argument the replay guard adds to every write tool and `confirm_action`. */
export const IDEMPOTENCY_KEY = 'idempotency_key';

const IDEMPOTENCY_ARGUMENT: GuardArgument = Object.freeze({
  schema: Object.freeze({
    type: 'string',
    minLength: 8,
    maxLength: 128,
    pattern: '^[A-Za-z0-9._:-]+$',
    description:
      'Optional key for this change; resending it with the same arguments returns the first result. A new key runs the change again.',
  }),
});

/** A claim a call owns: completed inside the unit of work, or released. */
export interface ReplayClaim {
  readonly key: string;
  readonly argumentsDigest: string;
  readonly fence: string;
  readonly windowMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * When a release fails (the store was busy or unreachable as the call
 * ended), it is tried again in the background after these delays, so a
 * retry of the call need not wait out the lease; after the last one the
 * lease frees the key.
 */
export const RELEASE_RETRY_MS: readonly number[] = Object.freeze([50, 250, 1_000, 4_000]);

function duration(name: string, value: number | undefined, fallback: number, zeroOk = false): number {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen < 0 || (!zeroOk && chosen === 0))
    throw new ConfigurationError(
      `replayGuard: ${name} must be a ${zeroOk ? 'non-negative' : 'positive'} number.`,
    );
  return chosen;
}

const storeDown = deny({
  code: 'store_unavailable',
  message: 'The replay store could not be reached; nothing ran.',
  fix: 'Retry shortly.',
});

/**
 * Replay protection of every write and confirmation (I10), a claim guard.
 * Its fingerprint is connection + tool + SHA-256 of the canonical JSON of
 * every argument sent (guard-owned ones included, the key itself excepted);
 * with `idempotency_key` the key names the record and is bound to that
 * digest (same key, other arguments: `idempotency_key_conflict`). The claim
 * commits on its own, before the unit of work, with a lease and a fencing
 * token; the result is kept inside the unit of work, only while the claim
 * is current. An identical call meanwhile answers `still_running`, one
 * after it the stored result (`replayed: true`). A store that fails refuses
 * (`store_unavailable`): nothing runs unprotected.
 *
 * @example
 * replayGuard({ store: stores.replay });
 */
export function replayGuard(options: ReplayGuardOptions): ClaimGuard<ReplayClaim> {
  const store = options?.store;
  const methods = ['begin', 'complete', 'release', 'holds', 'renew'] as const;
  if (methods.some((name) => typeof store?.[name] !== 'function')) {
    throw new ConfigurationError(
      'replayGuard: store must be a ReplayStore (begin, complete, release, holds, renew).',
    );
  }
  const windowMs = duration('windowMs', options.windowMs, 5 * 60_000);
  const keyedWindowMs = duration('keyedWindowMs', options.keyedWindowMs, 24 * 3_600_000);
  const lease = leaseOf('replayGuard', options);
  const waitMs = duration('waitMs', options.waitMs, 0, true);
  const pollMs = duration('pollMs', options.pollMs, 20);

  async function settle(key: string, argumentsDigest: string, clock: () => number): Promise<ReplayBegin> {
    const deadline = clock() + waitMs;
    for (;;) {
      const found = await store.begin(key, argumentsDigest, lease.leaseMs, clock());
      if (found.state !== 'running' || clock() >= deadline || found.argumentsDigest !== argumentsDigest)
        return found;
      await sleep(pollMs);
    }
  }

  async function claim(call: ToolCall, clock: () => number): Promise<ClaimDecision<ReplayClaim>> {
    const { [IDEMPOTENCY_KEY]: sentKey, ...guardOwned } = call.guardArguments;
    const idempotencyKey = typeof sentKey === 'string' ? sentKey : undefined;
    const argumentsDigest = digest({ ...call.arguments, ...guardOwned });
    const scope = `${call.connection.connectionId}\u0000${call.tool.name}`;
    const key =
      idempotencyKey === undefined
        ? `${scope}\u0000${argumentsDigest}`
        : `${scope}\u0000key\u0000${idempotencyKey}`;
    let found: ReplayBegin;
    try {
      found = await settle(key, argumentsDigest, clock);
    } catch {
      return storeDown;
    }
    if (found.state === 'started') {
      const window = idempotencyKey === undefined ? windowMs : keyedWindowMs;
      return { ok: true, claim: { key, argumentsDigest, fence: found.fence, windowMs: window } };
    }
    if (found.argumentsDigest !== argumentsDigest) {
      return deny({
        code: 'idempotency_key_conflict',
        message: `The idempotency key ${idempotencyKey ?? ''} was already used with other arguments for ${call.tool.name}.`,
        fix: 'Use a new idempotency key for different arguments, or resend the original arguments.',
        details: { idempotency_key: idempotencyKey ?? '' },
      });
    }
    if (found.state === 'completed') return { ok: true, replayed: found.result };
    return deny({
      code: 'still_running',
      message: `An identical ${call.tool.name} call is still running.`,
      fix: 'Retry the same call in a few seconds; it will return that call’s result.',
      details: { retry_after_seconds: 2 },
    });
  }

  /** The store's release as a promise, whether the store throws or rejects. */
  const released = async (claimed: ReplayClaim): Promise<void> => store.release(claimed.key, claimed.fence);

  function releaseLater(claimed: ReplayClaim, attempt: number): void {
    const delay = RELEASE_RETRY_MS[attempt];
    if (delay === undefined) return;
    const timer = setTimeout(() => {
      released(claimed).catch(() => releaseLater(claimed, attempt + 1));
    }, delay);
    (timer as { unref?: () => void }).unref?.();
  }

  return defineGuard({
    kind: 'claim',
    name: 'replay',
    arguments: { [IDEMPOTENCY_KEY]: IDEMPOTENCY_ARGUMENT },
    lease,
    claim,
    keepAlive: (claimed: ReplayClaim, clock: () => number) =>
      heartbeat(() => store.renew(claimed.key, claimed.fence, lease.leaseMs, clock()), lease.renewMs),
    complete: (claimed: ReplayClaim, kept: JsonObject, unit: unknown, now: number) =>
      store.complete(claimed.key, claimed.fence, claimed.argumentsDigest, kept, claimed.windowMs, now, unit),
    /** A store that cannot answer leaves the call's own answer standing. */
    async held(claimed: ReplayClaim): Promise<boolean> {
      try {
        return await store.holds(claimed.key, claimed.fence);
      } catch {
        return true;
      }
    },
    /** A release the store refuses is tried again in the background; a late one never frees a newer claim. */
    async release(claimed: ReplayClaim): Promise<void> {
      await released(claimed).catch(() => releaseLater(claimed, 0));
    },
  });
}
