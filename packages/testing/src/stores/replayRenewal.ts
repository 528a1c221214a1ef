import type { ReplayBegin, ReplayStore } from '@gatehousejs/core';
import { expect, it } from 'vitest';
import { openFixture, restarted, type StoreFactory } from './fixture.js';

/** Claims `key` and returns its fencing token; fails the test if the claim is refused. */
export async function claimKey(
  store: ReplayStore,
  key: string,
  digest: string,
  leaseMs: number,
  now: number,
): Promise<string> {
  const begun: ReplayBegin = await store.begin(key, digest, leaseMs, now);
  if (begun.state !== 'started') throw new Error(`expected to claim ${key}, found ${begun.state}`);
  expect(typeof begun.fence).toBe('string');
  return begun.fence;
}

/**
 * The lease-renewal part of the replay contract (I10): `renew` extends the
 * running claim holding its fence, and nothing else: not a completed or
 * released key, not a claim taken over, not a lease that already lapsed.
 */
export function describeReplayRenewal(factory: StoreFactory<ReplayStore>): void {
  it('extends a running lease on renew: a begin after the first lease, inside the renewed one, answers running', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const fence = await claimKey(store, 'k', 'd', 100, 0);
    expect(await store.renew('k', fence, 100, 80)).toBe(true); // now lapses at 180
    expect(await store.begin('k', 'd2', 100, 150)).toEqual({ state: 'running', argumentsDigest: 'd' });
    expect(await store.begin('k', 'd2', 100, 179)).toEqual({ state: 'running', argumentsDigest: 'd' });
    expect(await store.renew('k', fence, 1_000, 179)).toBe(true); // and renews again: lapses at 1,179
    expect((await store.begin('k', 'd2', 100, 1_178)).state).toBe('running');
    expect(await store.holds('k', fence)).toBe(true);
    expect(await store.complete('k', fence, 'd', { id: 'b1' }, 60_000, 1_100)).toBe(true);
    expect(await store.begin('k', 'd2', 100, 1_200)).toMatchObject({
      state: 'completed',
      result: { id: 'b1' },
    });
  });

  it('lets a renewed lease lapse at its new end, so the key is free again', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const fence = await claimKey(store, 'k', 'd', 100, 0);
    expect(await store.renew('k', fence, 100, 50)).toBe(true);
    expect((await store.begin('k', 'd', 100, 149)).state).toBe('running');
    const next = await claimKey(store, 'k', 'd', 100, 150);
    expect(next).not.toBe(fence);
  });

  it('refuses to renew a completed key, and leaves its result window as it was', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const fence = await claimKey(store, 'k', 'd', 100, 0);
    expect(await store.complete('k', fence, 'd', { id: 'b1' }, 1_000, 10)).toBe(true);
    expect(await store.renew('k', fence, 1_000_000, 20)).toBe(false);
    expect(await store.begin('k', 'd', 100, 1_009)).toMatchObject({
      state: 'completed',
      result: { id: 'b1' },
    });
    expect((await store.begin('k', 'd', 100, 1_010)).state).toBe('started');
  });

  it('refuses to renew a released key, and revives nothing', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const fence = await claimKey(store, 'k', 'd', 1_000, 0);
    await store.release('k', fence);
    expect(await store.renew('k', fence, 1_000, 10)).toBe(false);
    expect((await store.begin('k', 'd', 1_000, 20)).state).toBe('started');
    expect(await store.renew('never-claimed', fence, 1_000, 10)).toBe(false);
  });

  it('refuses a renewal with a stale fence after a takeover, and leaves the new claim’s lease alone', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const first = await claimKey(store, 'k', 'd', 100, 0);
    const second = await claimKey(store, 'k', 'd', 100, 200); // the first lease ran out: taken over, lapses at 300
    expect(await store.renew('k', first, 10_000, 250)).toBe(false);
    expect(await store.holds('k', second)).toBe(true);
    expect((await store.begin('k', 'd', 100, 299)).state).toBe('running');
    const third = await claimKey(store, 'k', 'd', 100, 300); // not extended by the stale renewal
    expect(await store.renew('k', second, 100, 310)).toBe(false);
    expect(await store.renew('k', third, 100, 310)).toBe(true);
  });

  it('refuses to renew a lease that already lapsed, even before anyone took it over', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const fence = await claimKey(store, 'k', 'd', 100, 0);
    expect(await store.renew('k', fence, 1_000, 100)).toBe(false); // lapsed at 100, to the millisecond
    expect((await store.begin('k', 'd', 100, 101)).state).toBe('started'); // nothing was extended
    // a late heartbeat changes nothing either: the lapsed claim still completes while nobody took over
    const late = await claimKey(store, 'late', 'd', 100, 0);
    expect(await store.renew('late', late, 1_000, 150)).toBe(false);
    expect(await store.holds('late', late)).toBe(true);
    expect(await store.complete('late', late, 'd', { id: 'b1' }, 60_000, 160)).toBe(true);
  });

  it('keeps a running claim renewable through a restart', async (ctx) => {
    const fixture = await openFixture(factory, ctx);
    const fence = await claimKey(fixture.store, 'k', 'd', 100, 0);
    const store = await restarted(fixture, ctx);
    expect(await store.renew('k', fence, 1_000, 50)).toBe(true);
    expect(await store.begin('k', 'd2', 100, 500)).toEqual({ state: 'running', argumentsDigest: 'd' });
    expect(await store.renew('k', 'a-fence-never-issued', 1_000, 60)).toBe(false);
  });
}
