import type { RateBucketStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import {
  BOUNDED_TIMEOUT_MS,
  concurrently,
  counted,
  HOUSEKEEPING_EVERY,
  openFixture,
  type StoreFactory,
} from './fixture.js';

/**
 * Registers the contract every {@link RateBucketStore} must keep (I7): a bucket
 * grants its capacity at once and then refuses with an exact retry hint; of
 * 1,000 concurrent takes exactly `capacity` succeed; tokens refill at the
 * configured rate up to the capacity; buckets are independent per key; idle
 * buckets are forgotten (by the store itself, or by the fixture's `purge` run
 * as housekeeping would), so the record count stays bounded.
 *
 * @example
 * describeRateBucketStore('MemoryRateBucketStore', () => ({ store: new MemoryRateBucketStore() }));
 */
export function describeRateBucketStore(name: string, factory: StoreFactory<RateBucketStore>): void {
  const limit = { capacity: 3, refillPerSecond: 1 };

  describe(name, () => {
    it('allows the capacity at once, then refuses with a retry hint', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await store.take('c1:write', limit, 0));
      expect(answers).toEqual([
        { ok: true, remaining: 2 },
        { ok: true, remaining: 1 },
        { ok: true, remaining: 0 },
        { ok: false, retryAfterMs: 1_000 },
      ]);
    });

    it('gives a refunded token back, never above the capacity', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      for (let i = 0; i < 3; i++) await store.take('c1:write', limit, 0);
      expect((await store.take('c1:write', limit, 0)).ok).toBe(false);
      await store.refund('c1:write', limit, 0);
      expect(await store.take('c1:write', limit, 0)).toEqual({ ok: true, remaining: 0 });
      await store.refund('c1:fresh', limit, 0); // an unknown bucket is full: nothing to give back
      for (let i = 0; i < 3; i++) await store.refund('c1:fresh', limit, 0);
      const takes = [];
      for (let i = 0; i < 4; i++) takes.push((await store.take('c1:fresh', limit, 0)).ok);
      expect(takes).toEqual([true, true, true, false]);
    });

    it('grants exactly the capacity to 1,000 concurrent takes', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const answers = await concurrently(1000, () =>
        store.take('c1:read', { capacity: 25, refillPerSecond: 1 }, 0),
      );
      expect(answers.filter((a) => a.ok)).toHaveLength(25);
    });

    it('refills at the configured rate and hints the time to the next token', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      for (let i = 0; i < 3; i++) await store.take('k', limit, 0);
      expect(await store.take('k', limit, 500)).toEqual({ ok: false, retryAfterMs: 500 });
      expect(await store.take('k', limit, 1_000)).toEqual({ ok: true, remaining: 0 });
      expect(await store.take('k', limit, 1_000)).toEqual({ ok: false, retryAfterMs: 1_000 });
      const slow = { capacity: 1, refillPerSecond: 0.5 };
      await store.take('slow', slow, 0);
      expect(await store.take('slow', slow, 0)).toEqual({ ok: false, retryAfterMs: 2_000 });
    });

    it('caps the refill at the capacity after a long idle', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      for (let i = 0; i < 3; i++) await store.take('k', limit, 0);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push((await store.take('k', limit, 100_000)).ok);
      expect(answers).toEqual([true, true, true, false]);
    });

    it('keeps buckets independent per key', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      for (let i = 0; i < 3; i++) await store.take('c1:write', limit, 0);
      expect((await store.take('c1:write', limit, 0)).ok).toBe(false);
      expect(await store.take('c1:read', limit, 0)).toEqual({ ok: true, remaining: 2 });
      expect(await store.take('c2:write', limit, 0)).toEqual({ ok: true, remaining: 2 });
    });

    // 3,000 sequential store calls: a database over the network takes longer than a unit test's default
    it('stays bounded: buckets full again are forgotten as new ones arrive, with housekeeping', {
      timeout: BOUNDED_TIMEOUT_MS,
    }, async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      const fast = { capacity: 1, refillPerSecond: 100 };
      for (let i = 0; i < 3_000; i++) {
        if (i % HOUSEKEEPING_EVERY === 0) await fixture.purge?.(i);
        await fixture.store.take(`c${i}:read`, fast, i);
      }
      // counted just before the next housekeeping run: the most the table ever holds
      expect(await counted(fixture, ctx)).toBeLessThan(300);
    });
  });
}
