import { EFFECTS, type Effect } from '../effects.js';
import { ConfigurationError, type ToolErrorInit } from '../errors.js';
import type { BucketLimit, RateBucketStore } from '../storage/rateBucketStore.js';

/** Options of the rate stage (I7): `createServer({ rate })`. */
export interface RateOptions {
  readonly store: RateBucketStore;
  /** Limits per effect class; classes not listed use `fallback`. */
  readonly limits?: Partial<Record<Effect, BucketLimit>>;
  /** Default 60 calls at once, refilled at 1 per second. */
  readonly fallback?: BucketLimit;
}

/** A token taken at admission; given back when the call is answered without running (a replay). */
export interface RateToken {
  readonly key: string;
  readonly limit: BucketLimit;
}

const checkLimit = (label: string, limit: BucketLimit) => {
  if (!(limit?.capacity >= 1) || !(limit.refillPerSecond > 0)) {
    throw new ConfigurationError(
      `createServer: rate limit ${label} needs capacity ≥ 1 and refillPerSecond > 0.`,
    );
  }
};

/**
 * The rate stage of core's pipeline (I7): every call takes one token at
 * admission, before any argument work, from its bucket: the tool's effect
 * class, or `read` for `confirm_action`, `reject_action` and other built-ins
 * (the token a preview took covers its confirmation). A replay answer gives
 * its token back. An empty bucket is `rate_limited` with
 * `retry_after_seconds`; a store that fails refuses the call (fails closed).
 */
export function rateStage(options: RateOptions, clock: () => Date) {
  if (typeof options.store?.take !== 'function' || typeof options.store.refund !== 'function') {
    throw new ConfigurationError('createServer: rate.store must be a RateBucketStore (take and refund).');
  }
  const fallback = options.fallback ?? { capacity: 60, refillPerSecond: 1 };
  checkLimit('fallback', fallback);
  for (const [effect, limit] of Object.entries(options.limits ?? {})) {
    if (!EFFECTS.includes(effect as Effect))
      throw new ConfigurationError(`createServer: rate limit for unknown effect class ${effect}.`);
    checkLimit(effect, limit);
  }
  const { store } = options;
  return Object.freeze({
    /** Takes a token for `bucket`; a refusal when the bucket is empty or the store fails. */
    async take(connectionId: string, bucket: Effect): Promise<RateToken | ToolErrorInit> {
      const limit = options.limits?.[bucket] ?? fallback;
      const key = `${connectionId}:${bucket}`;
      try {
        const taken = await store.take(key, limit, clock().getTime());
        if (taken.ok) return { key, limit };
        const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
        return {
          code: 'rate_limited',
          message: `This connection made too many ${bucket} calls.`,
          fix: `Wait ${seconds} second${seconds > 1 ? 's' : ''}, then retry.`,
          details: { effect: bucket, retry_after_seconds: seconds },
        };
      } catch {
        return {
          code: 'store_unavailable',
          message: 'The rate store could not be read; nothing ran.',
          fix: 'Retry shortly.',
        };
      }
    },
    /** Gives a token back (a replay answer ran nothing). Never throws. */
    async refund(token: RateToken): Promise<void> {
      await store.refund(token.key, token.limit, clock().getTime()).catch(() => undefined);
    },
  });
}

export type RateStage = ReturnType<typeof rateStage>;
