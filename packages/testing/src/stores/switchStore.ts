import type { SwitchStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently, openFixture, restarted, type StoreFactory } from './fixture.js';

/**
 * Registers the contract every {@link SwitchStore} must keep (I6): an unset
 * switch reads `undefined`; `set` returns the previous value, read atomically
 * with the write (of 200 concurrent first sets exactly one sees `undefined`);
 * keys are independent; values survive a restart.
 *
 * @example
 * describeSwitchStore('MemorySwitchStore', () => ({ store: new MemorySwitchStore() }));
 */
export function describeSwitchStore(name: string, factory: StoreFactory<SwitchStore>): void {
  describe(name, () => {
    it('reads undefined for a switch never set', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      expect(await store.get('global')).toBeUndefined();
    });

    it('returns the previous value on set, for before/after audit', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      expect(await store.set('global', true)).toBeUndefined();
      expect(await store.get('global')).toBe(true);
      expect(await store.set('global', false)).toBe(true);
      expect(await store.set('global', false)).toBe(false);
      expect(await store.get('global')).toBe(false);
    });

    it('gives exactly one of 200 concurrent first sets an undefined previous value', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const before = await concurrently(200, (i) => store.set('tenant:t1', i % 2 === 0));
      expect(before.filter((b) => b === undefined)).toHaveLength(1);
      expect(typeof (await store.get('tenant:t1'))).toBe('boolean');
    });

    it('keeps switches independent per key', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.set('global', true);
      expect(await store.get('tenant:t1')).toBeUndefined();
      expect(await store.set('tenant:t1', false)).toBeUndefined();
      expect(await store.get('global')).toBe(true);
    });

    it('keeps values through a restart', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      await fixture.store.set('global', true);
      await fixture.store.set('tenant:t1', false);
      const store = await restarted(fixture, ctx);
      expect(await store.get('global')).toBe(true);
      expect(await store.set('tenant:t1', true)).toBe(false);
    });
  });
}
