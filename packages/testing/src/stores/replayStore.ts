import type { ReplayStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import {
  BOUNDED_TIMEOUT_MS,
  concurrently,
  counted,
  HOUSEKEEPING_EVERY,
  openFixture,
  restarted,
  type StoreFactory,
} from './fixture.js';
import { claimKey, describeReplayRenewal } from './replayRenewal.js';

/**
 * Registers the contract every {@link ReplayStore} must keep (I10): exactly one
 * of 1,000 concurrent `begin` calls on a key gets `started`, each claim with
 * its own fencing token, and only the current claim completes (and `holds`
 * says so beforehand); `renew` extends only the live lease of the claim
 * holding its fence (false after complete, release, a takeover or the
 * lease's end, and a stale fence never extends the newer claim); a completed
 * result is returned with the first digest inside its window and forgotten
 * at its end; an abandoned lease frees the key; release frees it for a
 * retry; records, and a running claim's renewability, survive a restart when
 * the fixture can restart; record count stays bounded (with the fixture's
 * `purge` run as housekeeping would, where the store needs one).
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

    it('gives every claim its own fencing token, and completes only with the current one', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const first = await claimKey(store, 'k', 'd', 100, 0);
      const second = await claimKey(store, 'k', 'd', 100, 200); // the first lease ran out: taken over
      expect(second).not.toBe(first);
      expect(await store.complete('k', first, 'd', { by: 'first' }, 60_000, 210)).toBe(false);
      await store.release('k', first); // a stale release leaves the newer claim alone
      expect((await store.begin('k', 'd', 100, 220)).state).toBe('running');
      expect(await store.complete('k', second, 'd', { by: 'second' }, 60_000, 230)).toBe(true);
      expect(await store.begin('k', 'd', 100, 240)).toMatchObject({
        state: 'completed',
        result: { by: 'second' },
      });
    });

    it('tells a claim whether it still holds its key: exactly when completing it would store', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const first = await claimKey(store, 'k', 'd', 100, 0);
      expect(await store.holds('k', first)).toBe(true);
      expect(await store.holds('k', 'a-fence-never-issued')).toBe(false);
      expect(await store.holds('k', first)).toBe(true); // asking changes nothing
      const second = await claimKey(store, 'k', 'd', 100, 200); // the first lease ran out: taken over
      expect(await store.holds('k', first)).toBe(false);
      expect(await store.holds('k', second)).toBe(true);
      await store.release('k', first); // a stale release changes nothing either
      expect(await store.holds('k', second)).toBe(true);
      expect(await store.complete('k', second, 'd', { id: 'b1' }, 60_000, 210)).toBe(true);
      expect(await store.holds('k', first)).toBe(false);
      expect(await store.holds('k', second)).toBe(false); // a result is stored: nothing left to complete
      // a key with no record at all: a lapsed claim nobody took over may still complete
      const lone = await claimKey(store, 'lone', 'd', 100, 0);
      await store.release('lone', lone);
      expect(await store.holds('lone', lone)).toBe(true);
    });

    it('returns the completed result with the first digest inside the window', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const fence = await claimKey(store, 'k', 'digest-1', 1_000, 0);
      const result = { booking: { id: 'b1', tags: ['a', 'b'], price: 12.5, paid: false, note: null } };
      expect(await store.complete('k', fence, 'digest-1', result, 60_000, 10)).toBe(true);
      expect(await store.begin('k', 'digest-2', 1_000, 60_009)).toEqual({
        state: 'completed',
        argumentsDigest: 'digest-1',
        result,
      });
    });

    it('forgets a completed result the moment its window ends', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const fence = await claimKey(store, 'k', 'd', 1_000, 0);
      await store.complete('k', fence, 'd', { id: 'b1' }, 60_000, 10);
      expect((await store.begin('k', 'd', 1_000, 60_010)).state).toBe('started');
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
      const fence = await claimKey(store, 'k', 'd', 1_000, 0);
      await store.release('k', fence);
      expect((await store.begin('k', 'd', 1_000, 1)).state).toBe('started');
      expect((await store.begin('k', 'd', 1_000, 2)).state).toBe('running');
    });

    it('never erases a completed result on a late release, so the write cannot run again', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const fence = await claimKey(store, 'k', 'd', 1_000, 0);
      await store.complete('k', fence, 'd', { id: 'b1' }, 60_000, 1);
      await store.release('k', fence);
      expect(await store.begin('k', 'd', 1_000, 2)).toMatchObject({
        state: 'completed',
        result: { id: 'b1' },
      });
    });

    it('records a result completed after its lease ran out, with the digest it is given', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      const { store } = fixture;
      const fence = await claimKey(store, 'k', 'd1', 10, 0);
      // other keys' writes at a later time, and housekeeping, forget the expired lease of k before it completes
      for (let i = 0; i < 20; i++) {
        const other = await claimKey(store, `other${i}`, 'x', 10, 40);
        await store.complete(`other${i}`, other, 'x', { i }, 10_000, 40);
      }
      await fixture.purge?.(40);
      expect(await store.complete('k', fence, 'd1', { id: 'late' }, 1_000, 50)).toBe(true);
      expect(await store.begin('k', 'd2', 10, 100)).toEqual({
        state: 'completed',
        argumentsDigest: 'd1',
        result: { id: 'late' },
      });
    });

    it('keeps keys independent', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const a = await claimKey(store, 'a', 'd', 1_000, 0);
      await store.complete('a', a, 'd', { id: 'a' }, 1_000, 0);
      const b = await claimKey(store, 'b', 'd', 1_000, 0);
      await store.release('b', b);
      expect((await store.begin('a', 'd', 1_000, 1)).state).toBe('completed');
    });

    it('keeps running and completed records through a restart', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      const done = await claimKey(fixture.store, 'done', 'd1', 1_000, 0);
      await fixture.store.complete('done', done, 'd1', { id: 'b1' }, 60_000, 0);
      await fixture.store.begin('busy', 'd2', 1_000, 0);
      const store = await restarted(fixture, ctx);
      expect(await store.begin('done', 'x', 1_000, 10)).toEqual({
        state: 'completed',
        argumentsDigest: 'd1',
        result: { id: 'b1' },
      });
      expect(await store.begin('busy', 'x', 1_000, 10)).toEqual({ state: 'running', argumentsDigest: 'd2' });
    });

    // 6,000 sequential store calls: a database over the network takes longer than a unit test's default
    it('stays bounded: expired records are forgotten as new ones arrive, with housekeeping', {
      timeout: BOUNDED_TIMEOUT_MS,
    }, async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      for (let i = 0; i < 3_000; i++) {
        if (i % HOUSEKEEPING_EVERY === 0) await fixture.purge?.(i);
        const fence = await claimKey(fixture.store, `k${i}`, 'd', 10, i);
        await fixture.store.complete(`k${i}`, fence, 'd', { i }, 100, i);
      }
      // counted just before the next housekeeping run: the most the table ever holds
      expect(await counted(fixture, ctx)).toBeLessThan(300);
    });

    describeReplayRenewal(factory);
  });
}
