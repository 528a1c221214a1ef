import type { PendingAction, PendingActionStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently, openFixture, restarted, type StoreFactory } from './fixture.js';

const action = (overrides: Partial<PendingAction> = {}): PendingAction => ({
  id: 'pa1',
  tokenHash: 'h1',
  connectionId: 'c1',
  tenantId: 't1',
  tool: 'notify_customer',
  arguments: { booking_id: 'b1', lines: [{ n: 1, text: 'Ada' }], urgent: false, cc: null },
  argumentsDigest: 'ad',
  contentHash: 'ch',
  summary: 'Mail Ada about booking b1',
  createdAt: 0,
  expiresAt: 1_000,
  status: 'pending',
  ...overrides,
});

/**
 * Registers the contract every {@link PendingActionStore} must keep (I9):
 * lookup by token hash returns the action as inserted; a second action with
 * the same id or token hash is refused and the first kept; `transition` is a
 * compare-and-set (exactly one of 500 concurrent claims wins, a used action is
 * never claimed again); expired actions stay findable until purged; `purge`
 * removes exactly those expired before the cutoff; state survives a restart.
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
  });
}
