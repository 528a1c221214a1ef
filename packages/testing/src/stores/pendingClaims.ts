import type { PendingActionStore } from '@gatehousejs/core';
import { expect, it } from 'vitest';
import { concurrently, openFixture, restarted, type StoreFactory } from './fixture.js';
import { action, awaiting, leaseUntil } from './pendingRecords.js';

const OPEN = ['pending', 'approved'] as const;

/**
 * The claim part of the pending-action contract (I9): `claim` under a lease
 * and a fencing token, `renewClaim`, fenced and unfenced transitions out of
 * `claimed`, and the lapsed claims `listAwaitingApproval` lists again.
 */
export function describePendingClaims(factory: StoreFactory<PendingActionStore>): void {
  it('claims an action for exactly one of 200 concurrent claims, each with its own fence', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(action());
    const claims = Array.from({ length: 200 }, () => leaseUntil(900));
    const won = await concurrently(200, (i) => store.claim('pa1', OPEN, claims[i]!, 0));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = claims[won.indexOf(true)]!;
    const loser = claims[won.indexOf(false)]!;
    expect(await store.renewClaim('pa1', loser.fence, 5_000)).toBe(false);
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: loser.fence })).toBe(
      false,
    );
    expect(await store.findByTokenHash('h1')).toEqual(action({ status: 'claimed', claimExpiresAt: 900 }));
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: winner.fence })).toBe(
      true,
    );
    expect((await store.findByTokenHash('h1'))?.status).toBe('executed');
  });

  it('reads claimExpiresAt back after claim and renewClaim, and never the fence', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(action());
    const held = leaseUntil(500);
    expect(await store.claim('pa1', OPEN, held, 0)).toBe(true);
    expect(await store.findByTokenHash('h1')).toEqual(action({ status: 'claimed', claimExpiresAt: 500 }));
    expect(await store.renewClaim('pa1', held.fence, 800)).toBe(true);
    const renewed = await store.findByTokenHash('h1');
    expect(renewed).toEqual(action({ status: 'claimed', claimExpiresAt: 800 }));
    expect(JSON.stringify(renewed)).not.toContain(held.fence);
    if (store.findById) {
      expect(await store.findById('pa1')).toEqual(action({ status: 'claimed', claimExpiresAt: 800 }));
    }
    expect(await store.renewClaim('nope', held.fence, 900)).toBe(false);
    // an action inserted claimed under a lease reads back as inserted, and lapses at its claimExpiresAt
    await store.insert(action({ id: 'pa2', tokenHash: 'h2', status: 'claimed', claimExpiresAt: 300 }));
    expect(await store.findByTokenHash('h2')).toEqual(
      action({ id: 'pa2', tokenHash: 'h2', status: 'claimed', claimExpiresAt: 300 }),
    );
    expect(await store.claim('pa2', OPEN, leaseUntil(900), 299)).toBe(false);
    expect(await store.claim('pa2', OPEN, leaseUntil(900), 300)).toBe(true);
  });

  it('never takes over a live claim', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(action());
    const first = leaseUntil(500);
    const second = leaseUntil(5_000);
    expect(await store.claim('pa1', OPEN, first, 0)).toBe(true);
    expect(await store.claim('pa1', OPEN, second, 499)).toBe(false);
    expect(await store.claim('pa1', [], second, 499)).toBe(false);
    expect(await store.renewClaim('pa1', second.fence, 6_000)).toBe(false);
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: second.fence })).toBe(
      false,
    );
    expect(await store.findByTokenHash('h1')).toEqual(action({ status: 'claimed', claimExpiresAt: 500 }));
    expect(await store.claim('nope', OPEN, second, 0)).toBe(false);
  });

  it('takes over a lapsed claim; the old fence then moves nothing and the new one does', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(action({ expiresAt: 60_000 }));
    const old = leaseUntil(500);
    const taker = leaseUntil(1_500);
    expect(await store.claim('pa1', OPEN, old, 0)).toBe(true);
    expect(await store.claim('pa1', OPEN, taker, 500)).toBe(true); // lapsed at its expiry, to the millisecond
    expect(await store.renewClaim('pa1', old.fence, 10_000)).toBe(false);
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: old.fence })).toBe(
      false,
    );
    const found = await store.findByTokenHash('h1');
    expect(found).toEqual(action({ expiresAt: 60_000, status: 'claimed', claimExpiresAt: 1_500 }));
    expect(await store.renewClaim('pa1', taker.fence, 2_000)).toBe(true);
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: taker.fence })).toBe(
      true,
    );
    expect(await store.claim('pa1', OPEN, leaseUntil(90_000), 80_000)).toBe(false); // executed stays executed
    expect((await store.findByTokenHash('h1'))?.status).toBe('executed');
  });

  it('lets exactly one of 200 concurrent claims take over a lapsed claim', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(action());
    expect(await store.claim('pa1', OPEN, leaseUntil(100), 0)).toBe(true);
    const claims = Array.from({ length: 200 }, () => leaseUntil(800));
    const won = await concurrently(200, (i) => store.claim('pa1', OPEN, claims[i]!, 200));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = claims[won.indexOf(true)]!;
    expect(await store.renewClaim('pa1', claims[won.indexOf(false)]!.fence, 900)).toBe(false);
    expect(await store.renewClaim('pa1', winner.fence, 900)).toBe(true);
  });

  it('takes over at once an action claimed without a lease, which no fence moves', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(action());
    expect(await store.transition('pa1', OPEN, 'claimed')).toBe(true);
    expect((await store.findByTokenHash('h1'))?.claimExpiresAt).toBeUndefined();
    const stray = leaseUntil(500).fence;
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: stray })).toBe(false);
    expect(await store.renewClaim('pa1', stray, 500)).toBe(false);
    expect(await store.claim('pa1', OPEN, leaseUntil(500), 0)).toBe(true);
    expect((await store.findByTokenHash('h1'))?.claimExpiresAt).toBe(500);
  });

  it('still moves a claimed action on an unfenced transition, and every transition clears the claim', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(action());
    const held = leaseUntil(500);
    expect(await store.claim('pa1', OPEN, held, 0)).toBe(true);
    expect(await store.transition('pa1', ['claimed'], 'approved')).toBe(true);
    expect((await store.findByTokenHash('h1'))?.claimExpiresAt).toBeUndefined();
    expect(await store.renewClaim('pa1', held.fence, 900)).toBe(false);
    // claimed again without a lease: the cleared fence no longer moves it, and it lapsed at once
    expect(await store.transition('pa1', ['approved'], 'claimed')).toBe(true);
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: held.fence })).toBe(
      false,
    );
    expect(await store.claim('pa1', [], leaseUntil(900), 10)).toBe(true);
    expect(await store.transition('pa1', ['claimed'], 'failed')).toBe(true);
    const failed = await store.findByTokenHash('h1');
    expect(failed?.status).toBe('failed');
    expect(failed?.claimExpiresAt).toBeUndefined();
  });

  it('fences only a move out of claimed: an action in another status of from moves as before', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(action());
    const stray = leaseUntil(500).fence;
    expect(await store.transition('pa1', ['pending'], 'superseded', undefined, { fence: stray })).toBe(true);
    expect((await store.findByTokenHash('h1'))?.status).toBe('superseded');
  });

  it('lists a person action whose claim lapsed as awaiting approval, and hides a live-claimed one', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const list = store.listAwaitingApproval?.bind(store);
    if (!list) return ctx.skip('the store has no listAwaitingApproval()');
    await store.insert(awaiting('live', { createdAt: 1 }));
    await store.insert(awaiting('lapsed', { createdAt: 2 }));
    await store.insert(awaiting('leaseless', { createdAt: 3 }));
    await store.insert(awaiting('open', { createdAt: 4 }));
    await store.insert(action({ id: 'model', tokenHash: 'h-model', createdAt: 0 }));
    expect(await store.claim('live', OPEN, leaseUntil(500), 0)).toBe(true);
    expect(await store.claim('lapsed', OPEN, leaseUntil(100), 0)).toBe(true);
    expect(await store.transition('leaseless', OPEN, 'claimed')).toBe(true);
    expect(await store.claim('model', OPEN, leaseUntil(100), 0)).toBe(true);
    const ids = async (now: number) => (await list('t1', now, 10)).map((a) => a.id);
    expect(await ids(99)).toEqual(['leaseless', 'open']);
    expect(await ids(100)).toEqual(['lapsed', 'leaseless', 'open']);
    expect(await ids(500)).toEqual(['live', 'lapsed', 'leaseless', 'open']);
    expect((await list('t1', 200, 10))[0]).toEqual(
      awaiting('lapsed', { createdAt: 2, status: 'claimed', claimExpiresAt: 100 }),
    );
  });

  it('keeps a claim, its lease and its fence through a restart', async (ctx) => {
    const fixture = await openFixture(factory, ctx);
    await fixture.store.insert(action());
    const held = leaseUntil(500);
    expect(await fixture.store.claim('pa1', OPEN, held, 0)).toBe(true);
    const store = await restarted(fixture, ctx);
    expect(await store.findByTokenHash('h1')).toEqual(action({ status: 'claimed', claimExpiresAt: 500 }));
    const taker = leaseUntil(2_000);
    expect(await store.claim('pa1', OPEN, taker, 499)).toBe(false);
    expect(await store.renewClaim('pa1', held.fence, 800)).toBe(true);
    expect(await store.claim('pa1', OPEN, taker, 799)).toBe(false);
    expect(await store.claim('pa1', OPEN, taker, 800)).toBe(true);
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: held.fence })).toBe(
      false,
    );
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { fence: taker.fence })).toBe(
      true,
    );
  });
}
