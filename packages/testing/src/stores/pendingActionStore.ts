import type { PendingActionStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently, openFixture, restarted, type StoreFactory } from './fixture.js';
import { describePendingClaims } from './pendingClaims.js';
import { action, awaiting, personAction } from './pendingRecords.js';

/**
 * Registers the contract every {@link PendingActionStore} must keep (I9):
 * lookup by token hash returns the action as inserted, approval fields
 * included (a model action reads back with none); a second action with
 * the same id or token hash is refused and the first kept; `transition` is a
 * compare-and-set (exactly one of 500 concurrent claims wins, a used action is
 * never claimed again) that writes its decision fields only when it wins;
 * `claim` is exclusive under concurrency (one of 200), never takes over a
 * live claim, and takes over a lapsed one, after which the old fence moves
 * nothing (neither `renewClaim` nor a fenced `transition`) and the new one
 * does; an unfenced transition still moves a claimed action; every
 * transition clears the claim; `claimExpiresAt` reads back after `claim` and
 * `renewClaim`, and the fence never does; `listAwaitingApproval` lists a
 * person action whose claim lapsed and hides a live-claimed one; expired
 * actions stay findable until purged; `purge` removes exactly those expired
 * before the cutoff; state, claims included, survives a restart. `findById`
 * and `listAwaitingApproval` are optional: their tests are reported as
 * skipped for a store without them, never passed.
 *
 * @example
 * describePendingActionStore('MemoryPendingActionStore', () => ({ store: new MemoryPendingActionStore() }));
 */
export function describePendingActionStore(name: string, factory: StoreFactory<PendingActionStore>): void {
  describe(name, () => {
    it('finds an inserted action by its token hash, exactly as inserted', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(action());
      expect(await store.findByTokenHash('h1')).toEqual(action());
      expect(await store.findByTokenHash('unknown')).toBeUndefined();
    });

    it('refuses a second action with the same id, and keeps the first', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(action());
      await expect(store.insert(action({ tokenHash: 'h2', summary: 'other' }))).rejects.toThrow();
      expect((await store.findByTokenHash('h1'))?.summary).toBe('Mail Ada about booking b1');
      expect(await store.findByTokenHash('h2')).toBeUndefined();
    });

    it('refuses a second action with the same token hash, and keeps the first', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(action());
      await expect(store.insert(action({ id: 'pa2', summary: 'other' }))).rejects.toThrow();
      expect(await store.findByTokenHash('h1')).toMatchObject({
        id: 'pa1',
        summary: 'Mail Ada about booking b1',
      });
      expect(await store.transition('pa2', ['pending'], 'claimed')).toBe(false);
    });

    it('claims an action for exactly one of 500 concurrent confirmations', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(action());
      const claims = await concurrently(500, () =>
        store.transition('pa1', ['pending', 'approved'], 'claimed'),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect((await store.findByTokenHash('h1'))?.status).toBe('claimed');
    });

    it('never claims a used action again: pending, claimed, executed, then no way back', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(action());
      expect(await store.transition('pa1', ['pending', 'approved'], 'claimed')).toBe(true);
      expect(await store.transition('pa1', ['pending', 'approved'], 'claimed')).toBe(false);
      expect(await store.transition('pa1', ['claimed'], 'executed')).toBe(true);
      expect(await store.transition('pa1', ['pending', 'approved'], 'claimed')).toBe(false);
      expect((await store.findByTokenHash('h1'))?.status).toBe('executed');
    });

    it('refuses a transition from another status, from an empty list, or of an unknown id', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(action());
      expect(await store.transition('pa1', ['approved'], 'claimed')).toBe(false);
      expect(await store.transition('pa1', [], 'claimed')).toBe(false);
      expect(await store.transition('nope', ['pending'], 'claimed')).toBe(false);
      expect((await store.findByTokenHash('h1'))?.status).toBe('pending');
    });

    it('keeps an expired action findable until it is purged, so a late confirmation answers "expired"', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(action({ expiresAt: 1_000 }));
      expect((await store.findByTokenHash('h1'))?.expiresAt).toBe(1_000);
      expect(await store.purge(1_001)).toBe(1);
      expect(await store.findByTokenHash('h1')).toBeUndefined();
    });

    it('purges exactly the actions that expired before the cutoff', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(action({ expiresAt: 1_000 }));
      await store.insert(action({ id: 'pa2', tokenHash: 'h2', expiresAt: 5_000 }));
      expect(await store.purge(1_000)).toBe(0);
      expect(await store.purge(2_000)).toBe(1);
      expect(await store.findByTokenHash('h1')).toBeUndefined();
      expect(await store.findByTokenHash('h2')).toBeDefined();
      expect(await store.transition('pa1', ['pending'], 'claimed')).toBe(false);
    });

    it('keeps actions, their status and their token lookup through a restart', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      await fixture.store.insert(action());
      await fixture.store.insert(action({ id: 'pa2', tokenHash: 'h2' }));
      await fixture.store.transition('pa1', ['pending'], 'claimed');
      const store = await restarted(fixture, ctx);
      expect(await store.findByTokenHash('h1')).toEqual(action({ status: 'claimed' }));
      expect(await store.transition('pa1', ['pending', 'approved'], 'claimed')).toBe(false);
      expect(await store.transition('pa2', ['pending', 'approved'], 'claimed')).toBe(true);
      await expect(store.insert(action({ id: 'pa3' }))).rejects.toThrow();
    });

    describeApprovalByPerson(factory);
    describePendingClaims(factory);
  });
}

/** The approval-by-a-person part of the contract: decision fields, `findById`, `listAwaitingApproval`. */
function describeApprovalByPerson(factory: StoreFactory<PendingActionStore>): void {
  it('reads a person action back with every approval field, and a model action with none', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(personAction());
    await store.insert(action({ id: 'pa2', tokenHash: 'h2' }));
    expect(await store.findByTokenHash('h1')).toEqual(personAction());
    expect(await store.findByTokenHash('h2')).toStrictEqual(action({ id: 'pa2', tokenHash: 'h2' }));
  });

  it('writes the decision fields with the status, and only when the compare-and-set succeeds', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(awaiting('pa1'));
    const lost = await store.transition('pa1', ['approved'], 'executed', undefined, {
      result: { sent: true },
      decidedBy: 'p9',
      decidedAt: 90,
    });
    expect(lost).toBe(false);
    expect(await store.findByTokenHash('h-pa1')).toStrictEqual(awaiting('pa1'));
    const decision = { decidedBy: 'p2', decidedAt: 20 };
    expect(await store.transition('pa1', ['pending'], 'approved', undefined, decision)).toBe(true);
    expect(await store.findByTokenHash('h-pa1')).toEqual(
      awaiting('pa1', { ...decision, status: 'approved' }),
    );
    // A later transition keeps the fields it does not set.
    const result = { booking: { id: 'b1' }, lines: [1, 2] };
    expect(await store.transition('pa1', ['approved'], 'claimed')).toBe(true);
    expect(await store.transition('pa1', ['claimed'], 'executed', undefined, { result })).toBe(true);
    expect(await store.findByTokenHash('h-pa1')).toEqual(
      awaiting('pa1', { ...decision, result, status: 'executed' }),
    );
  });

  it('keeps the decision of the one approver out of 100 concurrent ones who moved the action', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    await store.insert(awaiting('pa1'));
    const moved = await concurrently(100, (i) =>
      store.transition('pa1', ['pending'], i % 2 ? 'approved' : 'rejected', undefined, {
        decidedBy: `p${i}`,
        decidedAt: 1_000 + i,
      }),
    );
    const winner = moved.indexOf(true);
    expect(moved.filter(Boolean)).toHaveLength(1);
    expect(await store.findByTokenHash('h-pa1')).toEqual(
      awaiting('pa1', {
        status: winner % 2 ? 'approved' : 'rejected',
        decidedBy: `p${winner}`,
        decidedAt: 1_000 + winner,
      }),
    );
  });

  it('finds an action by its id whatever its status, and nothing for an unknown id', async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const findById = store.findById?.bind(store);
    if (!findById) return ctx.skip('the store has no findById()');
    await store.insert(awaiting('pa1'));
    await store.insert(action({ id: 'pa2', tokenHash: 'h2' }));
    await store.transition('pa2', ['pending'], 'superseded');
    expect(await findById('pa1')).toEqual(awaiting('pa1'));
    expect(await findById('pa2')).toStrictEqual(action({ id: 'pa2', tokenHash: 'h2', status: 'superseded' }));
    expect(await findById('h-pa1')).toBeUndefined();
    expect(await findById('nope')).toBeUndefined();
    await store.purge(1_001);
    expect(await findById('pa1')).toBeUndefined();
  });

  it("lists a tenant's person actions awaiting approval: pending, unexpired, oldest first, at most the limit", async (ctx) => {
    const { store } = await openFixture(factory, ctx);
    const list = store.listAwaitingApproval?.bind(store);
    if (!list) return ctx.skip('the store has no listAwaitingApproval()');
    const shown = [
      awaiting('late', { createdAt: 30 }),
      awaiting('tie-b', { createdAt: 10 }),
      awaiting('tie-a', { createdAt: 10 }),
      awaiting('soon', { createdAt: 20, expiresAt: 500 }),
    ];
    const hidden = [
      action({ id: 'model', tokenHash: 'h-model', createdAt: 1 }),
      action({ id: 'model-set', tokenHash: 'h-model-set', createdAt: 1, approval: 'model' }),
      awaiting('other-tenant', { tenantId: 't2', createdAt: 1 }),
      awaiting('approved', { createdAt: 1, status: 'approved', decidedBy: 'p2', decidedAt: 2 }),
      awaiting('rejected', { createdAt: 1, status: 'rejected' }),
      awaiting('expired', { createdAt: 1, expiresAt: 100 }),
    ];
    for (const pending of [...shown, ...hidden]) await store.insert(pending);
    const ids = async (now: number, limit: number) => (await list('t1', now, limit)).map((a) => a.id);
    expect(await ids(100, 10)).toEqual(['tie-a', 'tie-b', 'soon', 'late']);
    expect(await ids(500, 10)).toEqual(['tie-a', 'tie-b', 'late']);
    expect(await ids(100, 2)).toEqual(['tie-a', 'tie-b']);
    expect(await ids(100, 0)).toEqual([]);
    expect(await list('t1', 100, 1)).toEqual([shown[2]]);
    expect(await list('t2', 100, 10)).toEqual([hidden[2]]);
    expect(await list('t3', 100, 10)).toEqual([]);
    // A decision takes an action off the list.
    await store.transition('tie-a', ['pending'], 'approved', undefined, { decidedBy: 'p2', decidedAt: 150 });
    expect(await ids(200, 10)).toEqual(['tie-b', 'soon', 'late']);
  });

  it("keeps a person action's approval fields and decision through a restart", async (ctx) => {
    const fixture = await openFixture(factory, ctx);
    await fixture.store.insert(awaiting('pa1'));
    await fixture.store.insert(awaiting('pa2', { createdAt: 5 }));
    await fixture.store.transition('pa1', ['pending'], 'approved', undefined, {
      decidedBy: 'p2',
      decidedAt: 7,
    });
    const store = await restarted(fixture, ctx);
    expect(await store.findByTokenHash('h-pa1')).toEqual(
      awaiting('pa1', { status: 'approved', decidedBy: 'p2', decidedAt: 7 }),
    );
    expect(await store.findByTokenHash('h-pa2')).toEqual(awaiting('pa2', { createdAt: 5 }));
    if (store.listAwaitingApproval) {
      expect(await store.listAwaitingApproval('t1', 0, 10)).toEqual([awaiting('pa2', { createdAt: 5 })]);
    }
  });
}
