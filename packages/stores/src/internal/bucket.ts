import type { BucketLimit, TakeResult } from '@gatehousejs/core';

/** A bucket's stored state. */
export interface BucketState {
  readonly tokens: number;
  readonly at: number;
}

/** The outcome of one take: what to answer and what to store. */
export interface BucketStep {
  readonly answer: TakeResult;
  readonly next: BucketState;
  /** When the bucket is full again and its row may be forgotten. */
  readonly expiresAt: number;
}

/**
 * Refills a bucket up to `now` and removes one token if there is one. Time that
 * runs backwards (clock skew between processes) refills nothing and never
 * moves the bucket's clock back.
 */
/** Puts one token back (a call answered without running), never above capacity. */
export function refundToken(state: BucketState, limit: BucketLimit, now: number): BucketStep {
  const elapsedMs = Math.max(0, now - state.at);
  const at = Math.max(state.at, now);
  const tokens = Math.min(limit.capacity, state.tokens + 1 + (elapsedMs / 1000) * limit.refillPerSecond);
  const expiresAt = at + ((limit.capacity - tokens) / limit.refillPerSecond) * 1000;
  return { answer: { ok: true, remaining: Math.floor(tokens) }, next: { tokens, at }, expiresAt };
}

export function takeToken(state: BucketState | undefined, limit: BucketLimit, now: number): BucketStep {
  const start = state ?? { tokens: limit.capacity, at: now };
  const elapsedMs = Math.max(0, now - start.at);
  const at = Math.max(start.at, now);
  const tokens = Math.min(limit.capacity, start.tokens + (elapsedMs / 1000) * limit.refillPerSecond);
  const expiresAt = at + (limit.capacity / limit.refillPerSecond) * 1000;
  if (tokens < 1) {
    const retryAfterMs = Math.ceil(((1 - tokens) / limit.refillPerSecond) * 1000);
    return { answer: { ok: false, retryAfterMs }, next: { tokens, at }, expiresAt };
  }
  return {
    answer: { ok: true, remaining: Math.floor(tokens - 1) },
    next: { tokens: tokens - 1, at },
    expiresAt,
  };
}
