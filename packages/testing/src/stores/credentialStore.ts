import type { CredentialRecord, CredentialStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently, openFixture, restarted, type StoreFactory } from './fixture.js';

const credential = (overrides: Partial<CredentialRecord> = {}): CredentialRecord => ({
  id: 'cr1',
  tokenHash: 'h1',
  tenantIds: ['t1'],
  creatorId: 'p1',
  rights: ['bookings.read', 'bookings.write'],
  clientLabel: 'Claude on laptop',
  toolset: null,
  createdAt: 0,
  expiresAt: null,
  revokedAt: null,
  ...overrides,
});

/**
 * Registers the contract every {@link CredentialStore} must keep (I4, I5):
 * lookups by token hash and by id return the record as inserted; a duplicate
 * id or token hash is refused and the first kept; revocation happens once (of
 * 500 concurrent revocations exactly one reports a change, and its time is
 * kept) and shows through both lookups; records survive a restart.
 *
 * @example
 * describeCredentialStore('MemoryCredentialStore', () => ({ store: new MemoryCredentialStore() }));
 */
export function describeCredentialStore(name: string, factory: StoreFactory<CredentialStore>): void {
  describe(name, () => {
    it('finds a credential by token hash and by id, exactly as inserted (toolset included)', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const record = credential({ tenantIds: ['t1', 't2'], expiresAt: 9_000, toolset: 'compact' });
      await store.insert(record);
      expect(await store.findByTokenHash('h1')).toEqual(record);
      expect(await store.findById('cr1')).toEqual(record);
      expect(await store.findByTokenHash('h2')).toBeUndefined();
      expect(await store.findById('cr2')).toBeUndefined();
    });

    it('refuses a duplicate id or token hash, and keeps the first', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(credential());
      await expect(store.insert(credential({ tokenHash: 'h2', clientLabel: 'x' }))).rejects.toThrow();
      await expect(store.insert(credential({ id: 'cr2', clientLabel: 'x' }))).rejects.toThrow();
      expect((await store.findById('cr1'))?.clientLabel).toBe('Claude on laptop');
      expect(await store.findByTokenHash('h2')).toBeUndefined();
      expect(await store.findById('cr2')).toBeUndefined();
    });

    it('revokes once: exactly one of 500 concurrent revocations reports a change', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(credential());
      const changed = await concurrently(500, (i) => store.revoke('cr1', 1_000 + i));
      expect(changed.filter(Boolean)).toHaveLength(1);
      expect((await store.findById('cr1'))?.revokedAt).toBe(1_000 + changed.indexOf(true));
    });

    it('shows a revocation through both lookups and never moves its time', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await store.insert(credential());
      expect(await store.revoke('cr1', 5)).toBe(true);
      expect(await store.revoke('cr1', 6)).toBe(false);
      expect((await store.findByTokenHash('h1'))?.revokedAt).toBe(5);
      expect((await store.findById('cr1'))?.revokedAt).toBe(5);
    });

    it('answers false when revoking an unknown credential', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      expect(await store.revoke('nope', 5)).toBe(false);
      expect(await store.findById('nope')).toBeUndefined();
    });

    it('keeps credentials and revocations through a restart', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      await fixture.store.insert(credential());
      await fixture.store.insert(credential({ id: 'cr2', tokenHash: 'h2' }));
      await fixture.store.revoke('cr2', 7);
      const store = await restarted(fixture, ctx);
      expect(await store.findByTokenHash('h1')).toEqual(credential());
      expect((await store.findById('cr2'))?.revokedAt).toBe(7);
      expect(await store.revoke('cr2', 8)).toBe(false);
      await expect(store.insert(credential({ id: 'cr3' }))).rejects.toThrow();
    });
  });
}
