import type { AuthorizationStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently, counted, openFixture, restarted, type StoreFactory } from './fixture.js';

const NOW = 1_000_000;
const grant = (id: string, clientId: string) => ({
  payload: JSON.stringify({ jti: id, clientId }),
  expiresAt: NOW + 60_000,
});

/**
 * Registers the contract every {@link AuthorizationStore} must keep (an OAuth
 * authorization server's records and keys, shared by replicas): records found
 * by id, uid and user code within their model; an expired record is never
 * read or listed, and `purgeExpired` deletes exactly those; `consume` marks
 * once and a save keeps the mark; a grant's records go together; the first
 * key stored under a name is every caller's, of 50 racing; all of it
 * survives a restart.
 *
 * @example
 * describeAuthorizationStore('MemoryAuthorizationStore', () => ({ store: new MemoryAuthorizationStore() }));
 */
export function describeAuthorizationStore(name: string, factory: StoreFactory<AuthorizationStore>): void {
  describe(name, () => {
    it('finds a record by id, uid and user code within its model, and says when a save replaced one', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const record = {
        payload: '{"kind":"Session"}',
        uid: 'u1',
        userCode: 'ABCD-EFGH',
        expiresAt: NOW + 1_000,
      };
      expect(await store.save('Session', 's1', record)).toBe(false);
      expect(await store.find('Session', 'id', 's1', NOW)).toEqual({ id: 's1', ...record });
      expect(await store.find('Session', 'uid', 'u1', NOW)).toMatchObject({ id: 's1' });
      expect(await store.find('Session', 'userCode', 'ABCD-EFGH', NOW)).toMatchObject({ id: 's1' });
      expect(await store.find('Interaction', 'id', 's1', NOW)).toBeUndefined();
      expect(await store.find('Session', 'uid', 'u2', NOW)).toBeUndefined();
      expect(await store.save('Session', 's1', { payload: '{"kind":"again"}' })).toBe(true);
      expect(await store.find('Session', 'id', 's1', NOW)).toEqual({ id: 's1', payload: '{"kind":"again"}' });
    });

    it('never reads or lists an expired record, and purges exactly the expired ones', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      const { store } = fixture;
      await store.save('AccessToken', 'old', { payload: '{}', expiresAt: NOW });
      await store.save('AccessToken', 'new', { payload: '{}', expiresAt: NOW + 1 });
      await store.save('Client', 'kept', { payload: '{}' });
      expect(await store.find('AccessToken', 'id', 'old', NOW)).toBeUndefined();
      expect(await store.find('AccessToken', 'id', 'new', NOW)).toMatchObject({ id: 'new' });
      expect((await store.list('AccessToken', NOW)).map((r) => r.id)).toEqual(['new']);
      expect(await store.purgeExpired(NOW)).toBe(1);
      expect(await store.purgeExpired(NOW)).toBe(0);
      expect(await store.find('Client', 'id', 'kept', NOW + 10 ** 12)).toMatchObject({ id: 'kept' });
      if (fixture.count) expect(await counted(fixture, ctx)).toBe(2);
    });

    it('marks a record consumed once, and keeps the mark when the record is saved again', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.save('AuthorizationCode', 'c1', { payload: '{"v":1}', expiresAt: NOW + 1_000 });
      await store.consume('AuthorizationCode', 'c1', NOW + 5);
      await store.consume('AuthorizationCode', 'c1', NOW + 9);
      expect(await store.find('AuthorizationCode', 'id', 'c1', NOW)).toMatchObject({ consumedAt: NOW + 5 });
      await store.save('AuthorizationCode', 'c1', { payload: '{"v":2}', expiresAt: NOW + 1_000 });
      expect(await store.find('AuthorizationCode', 'id', 'c1', NOW)).toMatchObject({
        payload: '{"v":2}',
        consumedAt: NOW + 5,
      });
    });

    it('deletes one record, one model’s records of a grant, or every record of a grant and the grant', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.save('Grant', 'g1', grant('g1', 'app'));
      await store.save('Grant', 'g2', grant('g2', 'app'));
      for (const model of ['AccessToken', 'RefreshToken'])
        for (const g of ['g1', 'g2']) await store.save(model, `${model}-${g}`, { payload: '{}', grantId: g });
      await store.revokeByGrantId('AccessToken', 'g1');
      expect(await store.find('AccessToken', 'id', 'AccessToken-g1', NOW)).toBeUndefined();
      expect(await store.find('RefreshToken', 'id', 'RefreshToken-g1', NOW)).toBeDefined();
      await store.forgetGrant('g1');
      expect(await store.find('RefreshToken', 'id', 'RefreshToken-g1', NOW)).toBeUndefined();
      expect(await store.find('Grant', 'id', 'g1', NOW)).toBeUndefined();
      expect((await store.list('Grant', NOW)).map((r) => r.id)).toEqual(['g2']);
      expect(await store.find('AccessToken', 'id', 'AccessToken-g2', NOW)).toBeDefined();
      expect(await store.destroy('Grant', 'g2')).toBe(true);
      expect(await store.destroy('Grant', 'g2')).toBe(false);
    });

    it('lists a model’s records by id, at most the limit asked', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      for (const id of ['c', 'a', 'b', 'd']) await store.save('Client', id, { payload: `{"id":"${id}"}` });
      await store.save('Grant', 'a', { payload: '{}' });
      expect((await store.list('Client', NOW)).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
      expect((await store.list('Client', NOW, 2)).map((r) => r.id)).toEqual(['a', 'b']);
      expect(await store.list('Client', NOW, 1)).toEqual([{ id: 'a', payload: '{"id":"a"}' }]);
    });

    it('keeps the first key stored under a name for every caller, of 50 racing', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const keys = await concurrently(50, (i) => store.keyOf('jwks', () => `key-${i}`, NOW));
      expect(new Set(keys).size).toBe(1);
      let made = 0;
      expect(
        await store.keyOf(
          'jwks',
          () => {
            made++;
            return 'late';
          },
          NOW,
        ),
      ).toBe(keys[0]);
      expect(made).toBe(0);
      expect(await store.keyOf('cookies', () => 'c1', NOW)).toBe('c1');
    });

    it('keeps records, consumed marks and keys through a restart', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      await fixture.store.save('RefreshToken', 'r1', {
        payload: '{"r":1}',
        grantId: 'g1',
        expiresAt: NOW + 1_000,
      });
      await fixture.store.consume('RefreshToken', 'r1', NOW);
      const key = await fixture.store.keyOf('jwks', () => 'k1', NOW);
      const store = await restarted(fixture, ctx);
      expect(await store.find('RefreshToken', 'id', 'r1', NOW)).toEqual({
        id: 'r1',
        payload: '{"r":1}',
        grantId: 'g1',
        expiresAt: NOW + 1_000,
        consumedAt: NOW,
      });
      expect(await store.keyOf('jwks', () => 'k2', NOW)).toBe(key);
    });
  });
}
