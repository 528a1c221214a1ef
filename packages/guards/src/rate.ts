import {
  type BucketLimit,
  ConfigurationError,
  defineGuard,
  EFFECTS,
  type Effect,
  type Guard,
  type RateBucketStore,
  refuse,
} from '@gatehousejs/core';

/** Options of {@link rateGuard}. */
export interface RateGuardOptions {
  readonly store: RateBucketStore;
  /** Limits per effect class; classes not listed use `fallback`. */
  readonly limits?: Partial<Record<Effect, BucketLimit>>;
  /** Default 60 calls at once, refilled at 1 per second. */
  readonly fallback?: BucketLimit;
  readonly clock?: () => number;
}

const checkLimit = (label: string, limit: BucketLimit) => {
  if (!(limit.capacity >= 1) || !(limit.refillPerSecond > 0)) {
    throw new ConfigurationError(`rateGuard: ${label} needs capacity ≥ 1 and refillPerSecond > 0.`);
  }
};

/**
 * Rate buckets per connection and per effect class (I7): reads, silent
 * writes and each outward class drain separate buckets. An empty bucket is a
 * `rate_limited` tool error with `retry_after_seconds`; nothing runs. A store
 * that fails refuses the call (fails closed).
 */
export function rateGuard(options: RateGuardOptions): Guard {
  const fallback = options.fallback ?? { capacity: 60, refillPerSecond: 1 };
  checkLimit('fallback', fallback);
  for (const [effect, limit] of Object.entries(options.limits ?? {})) {
    if (!EFFECTS.includes(effect as Effect))
      throw new ConfigurationError(`rateGuard: unknown effect class ${effect}.`);
    checkLimit(effect, limit);
  }
  const clock = options.clock ?? Date.now;
  return defineGuard({
    name: 'rate',
    handle: async function rateGuardHandle(call, next) {
      const { effect } = call.tool;
      const limit = options.limits?.[effect] ?? fallback;
      let taken: Awaited<ReturnType<RateBucketStore['take']>>;
      try {
        taken = await options.store.take(`${call.connection.connectionId}:${effect}`, limit, clock());
      } catch {
        return refuse({
          code: 'store_unavailable',
          message: 'The rate store could not be read; nothing ran.',
          fix: 'Retry shortly.',
        });
      }
      if (taken.ok) return next();
      const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
      return refuse({
        code: 'rate_limited',
        message: `This connection made too many ${effect} calls.`,
        fix: `Wait ${seconds} second${seconds > 1 ? 's' : ''}, then retry.`,
        details: { effect, retry_after_seconds: seconds },
      });
    },
  });
}
