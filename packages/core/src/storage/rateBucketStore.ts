import { ExpiringMap } from './expiringMap.js';

/** A token bucket: `capacity` calls at once, refilled at `refillPerSecond`. */
export interface BucketLimit {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

/** The answer of {@link RateBucketStore.take}. */
export type TakeResult =
  | { readonly ok: true; readonly remaining: number }
  | { readonly ok: false; readonly retryAfterMs: number };

/**
 * Rate buckets per connection and effect class (I7). `take` atomically
 * refills and removes one token; `refund` puts one back (never above
 * capacity), for a call answered without running (a replay). Replicas share
 * buckets by sharing a store.
 */
export interface RateBucketStore {
  take(key: string, limit: BucketLimit, now: number): Promise<TakeResult>;
  refund(key: string, limit: BucketLimit, now: number): Promise<void>;
}

/** A {@link RateBucketStore} in process memory; idle buckets are evicted once full again. */
export class MemoryRateBucketStore implements RateBucketStore {
  readonly #buckets = new ExpiringMap<string, { tokens: number; at: number }>();

  /** Live buckets, for tests of bounded memory. */
  get size(): number {
    return this.#buckets.size;
  }

  async take(key: string, limit: BucketLimit, now: number): Promise<TakeResult> {
    const bucket = this.#buckets.get(key, now) ?? { tokens: limit.capacity, at: now };
    const tokens = Math.min(
      limit.capacity,
      bucket.tokens + ((now - bucket.at) / 1000) * limit.refillPerSecond,
    );
    const refillMs = (limit.capacity / limit.refillPerSecond) * 1000;
    if (tokens < 1) {
      this.#buckets.set(key, { tokens, at: now }, now + refillMs, now);
      return { ok: false, retryAfterMs: Math.ceil(((1 - tokens) / limit.refillPerSecond) * 1000) };
    }
    this.#buckets.set(key, { tokens: tokens - 1, at: now }, now + refillMs, now);
    return { ok: true, remaining: Math.floor(tokens - 1) };
  }

  async refund(key: string, limit: BucketLimit, now: number): Promise<void> {
    const bucket = this.#buckets.get(key, now);
    if (!bucket) return; // an evicted bucket is full already
    const tokens = Math.min(
      limit.capacity,
      bucket.tokens + 1 + ((now - bucket.at) / 1000) * limit.refillPerSecond,
    );
    this.#buckets.set(key, { tokens, at: now }, now + (limit.capacity / limit.refillPerSecond) * 1000, now);
  }
}
