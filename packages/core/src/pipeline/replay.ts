import { REPLAY_NOTE } from '../contract/envelope.js';
import { type GuardArgument, type Outcome, refuse, type ToolCall } from '../contract/guard.js';
import { ConfigurationError, ToolError } from '../errors.js';
import { digest } from '../hashing.js';
import type { JsonObject } from '../json.js';
import type { ReplayBegin, ReplayStore } from '../storage/replayStore.js';
import { heartbeat, leaseOf } from './lease.js';

/** Options of the replay stage (I10): `createServer({ replay })`. */
export interface ReplayOptions {
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
   * plus the unit of work's `maxWaitMs` (checked at build).
   */
  readonly leaseMs?: number;
  /** How often a running call renews its claim; default a fifth of `leaseMs`. */
  readonly renewMs?: number;
  /** How long a duplicate waits for the first call's result before `still_running`; default 0 (answer at once). */
  readonly waitMs?: number;
  /** Poll interval while waiting; default 20 ms. */
  readonly pollMs?: number;
}

/** The argument the replay stage adds to every write tool and `confirm_action`. */
export const IDEMPOTENCY_KEY = 'idempotency_key';

export const IDEMPOTENCY_ARGUMENT: GuardArgument = Object.freeze({
  schema: Object.freeze({
    type: 'string',
    minLength: 8,
    maxLength: 128,
    pattern: '^[A-Za-z0-9._:-]+$',
    description:
      'Optional key for this change; resending it with the same arguments returns the first result. A new key runs the change again.',
  }),
});

/** A claim the call owns: complete it inside the unit of work, or release it. */
export interface ReplayClaim {
  readonly key: string;
  readonly argumentsDigest: string;
  readonly fence: string;
  readonly windowMs: number;
}

/** What the claim step decided: run (with the claim), or answer without running. */
export { REPLAY_NOTE };

export type ClaimDecision =
  | { readonly kind: 'run'; readonly claim: ReplayClaim }
  | { readonly kind: 'answer'; readonly outcome: Outcome };

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
      `createServer: replay.${name} must be a ${zeroOk ? 'non-negative' : 'positive'} number.`,
    );
  return chosen;
}

/** Thrown inside a unit of work when the claim was taken over; the unit rolls back. */
export class ReplayFenceLost extends ToolError {
  constructor(tool: string) {
    super({
      code: 'store_unavailable',
      message: `${tool} ran longer than its replay lease and an identical call took over; nothing of this call was kept.`,
      fix: 'Retry the same call; it returns the result of the call that took over, or runs once.',
    });
  }
}

/**
 * The replay stage of core's pipeline (I10). Its fingerprint is connection +
 * tool + SHA-256 of the canonical JSON of every argument sent (guard-owned
 * ones included, the key itself excepted); with `idempotency_key` the key
 * names the record and is bound to that digest. The claim commits on its
 * own, before the unit of work; the completion happens inside the unit of
 * work, and only while the claim's fencing token is current.
 */
export function replayStage(options: ReplayOptions, clock: () => Date, maxWaitMs?: number) {
  const { store } = options;
  const methods = ['begin', 'complete', 'release', 'holds', 'renew'] as const;
  if (methods.some((name) => typeof store?.[name] !== 'function')) {
    throw new ConfigurationError('createServer: replay.store must be a ReplayStore.');
  }
  const windowMs = duration('windowMs', options.windowMs, 5 * 60_000);
  const keyedWindowMs = duration('keyedWindowMs', options.keyedWindowMs, 24 * 3_600_000);
  const { leaseMs, renewMs } = leaseOf('replay', options, maxWaitMs);
  const waitMs = duration('waitMs', options.waitMs, 0, true);
  const pollMs = duration('pollMs', options.pollMs, 20);
  const now = () => clock().getTime();

  async function settle(key: string, argumentsDigest: string): Promise<ReplayBegin> {
    const deadline = now() + waitMs;
    for (;;) {
      const found = await store.begin(key, argumentsDigest, leaseMs, now());
      if (found.state !== 'running' || now() >= deadline || found.argumentsDigest !== argumentsDigest)
        return found;
      await sleep(pollMs);
    }
  }

  async function claim(call: ToolCall): Promise<ClaimDecision> {
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
      found = await settle(key, argumentsDigest);
    } catch {
      return answer(
        refuse({
          code: 'store_unavailable',
          message: 'The replay store could not be reached; nothing ran.',
          fix: 'Retry shortly.',
        }),
      );
    }
    if (found.state === 'started') {
      const window = idempotencyKey === undefined ? windowMs : keyedWindowMs;
      return { kind: 'run', claim: { key, argumentsDigest, fence: found.fence, windowMs: window } };
    }
    if (found.argumentsDigest !== argumentsDigest) {
      return answer(
        refuse({
          code: 'idempotency_key_conflict',
          message: `The idempotency key ${idempotencyKey ?? ''} was already used with other arguments for ${call.tool.name}.`,
          fix: 'Use a new idempotency key for different arguments, or resend the original arguments.',
          details: { idempotency_key: idempotencyKey ?? '' },
        }),
      );
    }
    if (found.state === 'completed') return answer({ kind: 'result', data: found.result, replayed: true });
    return answer(
      refuse({
        code: 'still_running',
        message: `An identical ${call.tool.name} call is still running.`,
        fix: 'Retry the same call in a few seconds; it will return that call’s result.',
        details: { retry_after_seconds: 2 },
      }),
    );
  }

  /** The store's release as a promise, whether the store throws or rejects. */
  const released = async (claimed: ReplayClaim): Promise<void> => store.release(claimed.key, claimed.fence);

  function releaseLater(claimed: ReplayClaim, attempt: number): void {
    const delay = RELEASE_RETRY_MS[attempt];
    if (delay === undefined) return;
    const timer = setTimeout(() => {
      released(claimed).catch(() => releaseLater(claimed, attempt + 1));
    }, delay);
    timer.unref?.();
  }

  return Object.freeze({
    claim,
    /** Renews `claimed` while its call runs (a heartbeat); returns the function that stops it. */
    keepAlive: (claimed: ReplayClaim): (() => void) =>
      heartbeat(() => store.renew(claimed.key, claimed.fence, leaseMs, now()), renewMs),
    /** Inside the unit of work: keeps the result, or throws {@link ReplayFenceLost} (the unit rolls back). */
    async complete(claimed: ReplayClaim, tool: string, kept: JsonObject, unit: unknown): Promise<void> {
      const done = await store.complete(
        claimed.key,
        claimed.fence,
        claimed.argumentsDigest,
        kept,
        claimed.windowMs,
        now(),
        unit,
      );
      if (!done) throw new ReplayFenceLost(tool);
    },
    /**
     * After a call ended without a result: false once another call took its
     * claim over (its answer is then {@link ReplayFenceLost}). A store that
     * cannot answer leaves the call's own answer standing. Never throws.
     */
    async held(claimed: ReplayClaim): Promise<boolean> {
      try {
        return await store.holds(claimed.key, claimed.fence);
      } catch {
        return true;
      }
    },
    /**
     * After a refusal or failure: forgets the claim so a retry runs. Never
     * throws; a release the store refuses is tried again in the background
     * ({@link RELEASE_RETRY_MS}). A late release is fenced: it never frees a
     * newer claim or a stored result.
     */
    async release(claimed: ReplayClaim): Promise<void> {
      await released(claimed).catch(() => releaseLater(claimed, 0));
    },
  });
}

const answer = (outcome: Outcome): ClaimDecision => ({ kind: 'answer', outcome });

export type ReplayStage = ReturnType<typeof replayStage>;
