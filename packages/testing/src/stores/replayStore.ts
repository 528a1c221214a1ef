import type { ReplayStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently, counted, openFixture, restarted, type StoreFactory } from './fixture.js';

/**
 * Registers the contract every {@link ReplayStore} must keep (I10): exactly one
 * of 1,000 concurrent `begin` calls on a key gets `started`; a completed result
 * is returned with the first digest inside its window and forgotten at its end;
 * an abandoned lease frees the key; release frees it for a retry; records
 * survive a restart when the fixture can restart; record count stays bounded.
 *
 * @example
 * describeReplayStore('MemoryReplayStore', () => ({ store: new MemoryReplayStore() }));
 */
export function describeReplayStore(name: string, factory: StoreFactory<ReplayStore>): void {
  describe(name, () => {
    it('lets exactly one of 1,000 concurrent callers start a key', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const answers = await concurrently(1000, () => store.begin('k', 'd1', 5_000, 0));
      expect(answers.filter((a) => a.state === 'started')).toHaveLength(1);
      expect(answers.filter((a) => a.state === 'running')).toHaveLength(999);
      expect(answers.find((a) => a.state === 'running')).toEqual({ state: 'running', argumentsDigest: 'd1' });
    });

    it('returns the completed result with the first digest inside the window', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.begin('k', 'digest-1', 1_000, 0);
      const result = { booking: { id: 'b1', tags: ['a', 'b'], price: 12.5, paid: false, note: null } };
      await store.complete('k', 'digest-1', result, 60_000, 10);
      expect(await store.begin('k', 'digest-2', 1_000, 60_009)).toEqual({
        state: 'completed',
        argumentsDigest: 'digest-1',
        result,
      });
    });

    it('forgets a completed result the moment its window ends', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.begin('k', 'd', 1_000, 0);
      await store.complete('k', 'd', { id: 'b1' }, 60_000, 10);
      expect(await store.begin('k', 'd', 1_000, 60_010)).toEqual({ state: 'started' });
    });

    it('frees a key whose lease ran out, so a crashed call cannot block it', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.begin('k', 'd', 1_000, 0);
      expect((await store.begin('k', 'd', 1_000, 999)).state).toBe('running');
      expect((await store.begin('k', 'd', 1_000, 1_000)).state).toBe('started');
      expect((await store.begin('k', 'd', 1_000, 1_001)).state).toBe('running');
    });

    it('lets exactly one of 1,000 concurrent callers take over an expired lease', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.begin('k', 'd', 100, 0);
      const answers = await concurrently(1000, () => store.begin('k', 'd', 100, 500));
      expect(answers.filter((a) => a.state === 'started')).toHaveLength(1);
    });

    it('frees a released key for a retry', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.begin('k', 'd', 1_000, 0);
      await store.release('k');
      expect((await store.begin('k', 'd', 1_000, 1)).state).toBe('started');
      expect((await store.begin('k', 'd', 1_000, 2)).state).toBe('running');
    });

    it('never erases a completed result on a late release, so the write cannot run again', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.begin('k', 'd', 1_000, 0);
      await store.complete('k', 'd', { id: 'b1' }, 60_000, 1);
      await store.release('k');
      expect(await store.begin('k', 'd', 1_000, 2)).toMatchObject({
        state: 'completed',
        result: { id: 'b1' },
      });
    });

    it('records a result completed after its lease ran out, with the digest it is given', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.begin('k', 'd1', 10, 0);
      // other keys' writes at a later time sweep the expired lease of k before it completes
      for (let i = 0; i < 20; i++) {
        await store.begin(`other${i}`, 'x', 10, 40);
        await store.complete(`other${i}`, 'x', { i }, 10_000, 40);
      }
      await store.complete('k', 'd1', { id: 'late' }, 1_000, 50);
      expect(await store.begin('k', 'd2', 10, 100)).toEqual({
        state: 'completed',
        argumentsDigest: 'd1',
        result: { id: 'late' },
      });
    });

    it('keeps keys independent', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.begin('a', 'd', 1_000, 0);
      await store.complete('a', 'd', { id: 'a' }, 1_000, 0);
      expect(await store.begin('b', 'd', 1_000, 0)).toEqual({ state: 'started' });
      await store.release('b');
      expect((await store.begin('a', 'd', 1_000, 1)).state).toBe('completed');
    });

    it('keeps running and completed records through a restart', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      await fixture.store.begin('done', 'd1', 1_000, 0);
      await fixture.store.complete('done', 'd1', { id: 'b1' }, 60_000, 0);
      await fixture.store.begin('busy', 'd2', 1_000, 0);
      const store = await restarted(fixture, ctx);
      expect(await store.begin('done', 'x', 1_000, 10)).toEqual({
        state: 'completed',
        argumentsDigest: 'd1',
        result: { id: 'b1' },
      });
      expect(await store.begin('busy', 'x', 1_000, 10)).toEqual({ state: 'running', argumentsDigest: 'd2' });
    });

    it('stays bounded: expired records are swept as new ones arrive', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      for (let i = 0; i < 3_000; i++) {
        await fixture.store.begin(`k${i}`, 'd', 10, i);
        await fixture.store.complete(`k${i}`, 'd', { i }, 100, i);
      }
      expect(await counted(fixture, ctx)).toBeLessThan(300);
    });
  });
}
