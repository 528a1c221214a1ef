import {
  type BucketLimit,
  ConfigurationError,
  type Decision,
  defineGuard,
  deny,
  EFFECTS,
  type Effect,
  type RateBucketStore,
  type RateGuard,
} from '@gatehousejs/core';

/** Options of {@link rateGuard}. */
export interface RateGuardOptions {
  /** The bucket store of every effect class not listed in `stores`. */
  readonly store: RateBucketStore;
  /**
   * A store per effect-class bucket; buckets not listed use `store`. A SQLite
   * host gives `read` a per-process `MemoryRateBucketStore`, so a read call
   * writes nothing to the database (each process then grants its own read budget).
   */
  readonly stores?: Partial<Record<Effect, RateBucketStore>>;
  /** Limits per effect class; classes not listed use `fallback`. */
  readonly limits?: Partial<Record<Effect, BucketLimit>>;
  /** Default 60 calls at once, refilled at 1 per second. */
  readonly fallback?: BucketLimit;
}

/** A token taken from a bucket; given back when the call is answered without running (a replay). */
export interface RateToken {
  readonly key: string;
  readonly limit: BucketLimit;
  /** The store the token came from, and goes back to. */
  readonly store: RateBucketStore;
}

const checkLimit = (label: string, limit: BucketLimit) => {
  if (!(limit?.capacity >= 1) || !(limit.refillPerSecond > 0)) {
    throw new ConfigurationError(`rateGuard: limit ${label} needs capacity ≥ 1 and refillPerSecond > 0.`);
  }
};

const isStore = (store: RateBucketStore | undefined): store is RateBucketStore =>
  typeof store?.take === 'function' && typeof store.refund === 'function';

const checkEffect = (what: string, effect: string) => {
  if (!EFFECTS.includes(effect as Effect))
    throw new ConfigurationError(`rateGuard: ${what} for unknown effect class ${effect}.`);
};

/** The store of each bucket: `stores[bucket]`, else `store`; refuses anything that is not a store. */
function bucketStores(options: RateGuardOptions): Readonly<Record<Effect, RateBucketStore>> {
  if (!isStore(options?.store)) {
    throw new ConfigurationError('rateGuard: store must be a RateBucketStore (take and refund).');
  }
  if (options.stores !== undefined && (typeof options.stores !== 'object' || options.stores === null)) {
    throw new ConfigurationError('rateGuard: stores must map effect classes to RateBucketStores.');
  }
  for (const [effect, store] of Object.entries(options.stores ?? {})) {
    checkEffect('stores entry', effect);
    if (!isStore(store))
      throw new ConfigurationError(
        `rateGuard: stores.${effect} must be a RateBucketStore (take and refund).`,
      );
  }
  const byEffect = EFFECTS.map((effect) => [effect, options.stores?.[effect] ?? options.store]);
  return Object.freeze(Object.fromEntries(byEffect) as Record<Effect, RateBucketStore>);
}

/**
 * Rate buckets per connection and effect class (I7): every call takes one
 * token before any argument work, from its bucket: the tool's effect class,
 * or `read` for `confirm_action`, `reject_action` and other built-ins (the
 * token a preview took covers its confirmation), held by that bucket's store
 * (`stores[bucket]`, else `store`). A replay answer gives its token back to
 * the store it came from. An empty bucket is `rate_limited` with
 * `retry_after_seconds`; a store that fails refuses the call (fails closed).
 * Refuses (ConfigurationError) a store without take and refund, bad limits
 * and unknown effect classes.
 *
 * @example
 * rateGuard({ store: stores.rateBuckets, limits: { write: { capacity: 30, refillPerSecond: 0.5 } } });
 */
export function rateGuard(options: RateGuardOptions): RateGuard<RateToken> {
  const stores = bucketStores(options);
  const fallback = options.fallback ?? { capacity: 60, refillPerSecond: 1 };
  checkLimit('fallback', fallback);
  for (const [effect, limit] of Object.entries(options.limits ?? {})) {
    checkEffect('limit', effect);
    checkLimit(effect, limit);
  }
  return defineGuard({
    kind: 'rate',
    name: 'rate',
    async take(connection, bucket, now): Promise<Decision<{ readonly token: RateToken }>> {
      const limit = options.limits?.[bucket] ?? fallback;
      const key = `${connection.connectionId}:${bucket}`;
      const store = stores[bucket];
      try {
        const taken = await store.take(key, limit, now);
        if (taken.ok) return { ok: true, token: { key, limit, store } };
        const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
        return deny({
          code: 'rate_limited',
          message: `This connection made too many ${bucket} calls.`,
          fix: `Wait ${seconds} second${seconds > 1 ? 's' : ''}, then retry.`,
          details: { effect: bucket, retry_after_seconds: seconds },
        });
      } catch {
        return deny({
          code: 'store_unavailable',
          message: 'The rate store could not be read; nothing ran.',
          fix: 'Retry shortly.',
        });
      }
    },
    async refund(token, now) {
      await token.store.refund(token.key, token.limit, now).catch(() => undefined);
    },
  });
}
