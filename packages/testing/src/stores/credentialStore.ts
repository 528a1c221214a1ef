import type { CredentialDirectory, CredentialRecord, CredentialStore } from '@gatehousejs/core';
import { describe, expect, it, type TestContext } from 'vitest';
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

/** A credential `id` with its own token hash. */
const listed = (id: string, overrides: Partial<CredentialRecord> = {}): CredentialRecord =>
  credential({ id, tokenHash: `h-${id}`, ...overrides });

/**
 * Five credentials over tenants t1 to t3, in insertion order; `cr-b` and `cr-d`
 * were created in the same millisecond, `cr-b` inserted first (ids break the tie).
 */
const directoryRecords = (): readonly CredentialRecord[] => [
  listed('cr-a', { tenantIds: ['t1'], creatorId: 'p1', createdAt: 10 }),
  listed('cr-b', { tenantIds: ['t1'], creatorId: 'p2', createdAt: 20 }),
  listed('cr-d', { tenantIds: ['t1', 't2'], creatorId: 'p1', createdAt: 20 }),
  listed('cr-c', { tenantIds: ['t2'], creatorId: 'p1', createdAt: 30 }),
  listed('cr-e', { tenantIds: ['t3'], creatorId: 'p2', createdAt: 5 }),
];

type Directory = CredentialStore & Partial<CredentialDirectory>;

/** The store's `list`, or the test marked skipped for a store without one. */
function listOf(store: Directory, context: TestContext): CredentialDirectory['list'] {
  const list = store.list?.bind(store);
  if (!list) return context.skip('the store has no list()');
  return list;
}

/** Opens a fixture holding {@link directoryRecords}; returns its store's `list` and the store. */
async function openDirectory(factory: StoreFactory<Directory>, context: TestContext) {
  const { store } = await openFixture(factory, context);
  const list = listOf(store, context);
  for (const record of directoryRecords()) await store.insert(record);
  const ids = async (query: Parameters<CredentialDirectory['list']>[0]) =>
    (await list(query)).map((record) => record.id);
  return { store, list, ids };
}

/**
 * Registers the contract every {@link CredentialStore} must keep (I4, I5):
 * lookups by token hash and by id return the record as inserted; a duplicate
 * id or token hash is refused and the first kept; revocation happens once (of
 * 500 concurrent revocations exactly one reports a change, and its time is
 * kept) and shows through both lookups; records survive a restart. A store
 * that is also a {@link CredentialDirectory} lists a tenant's credentials (a
 * credential with two tenants under either), or with `elsewhere` those outside
 * it, optionally by creator, newest first with ties broken by id descending,
 * revoked ones included; it honours `limit` and refuses one outside 0 to 1000
 * with a RangeError. Its tests are reported as skipped for a store without
 * `list`, never passed.
 *
 * @example
 * describeCredentialStore('MemoryCredentialStore', () => ({ store: new MemoryCredentialStore() }));
 */
export function describeCredentialStore(name: string, factory: StoreFactory<Directory>): void {
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

    it("lists a tenant's credentials newest first, ties broken by id descending", async (ctx) => {
      const { list, ids } = await openDirectory(factory, ctx);
      const [a, b, d] = directoryRecords();
      expect(await list({ tenantId: 't1', limit: 10 })).toEqual([d, b, a]);
      expect(await ids({ tenantId: 't3', limit: 10 })).toEqual(['cr-e']);
      expect(await ids({ tenantId: 'nobody', limit: 10 })).toEqual([]);
    });

    it("lists a tenant's credentials by creator", async (ctx) => {
      const { ids } = await openDirectory(factory, ctx);
      expect(await ids({ tenantId: 't1', creatorId: 'p1', limit: 10 })).toEqual(['cr-d', 'cr-a']);
      expect(await ids({ tenantId: 't1', creatorId: 'p2', limit: 10 })).toEqual(['cr-b']);
      expect(await ids({ tenantId: 't3', creatorId: 'p1', limit: 10 })).toEqual([]);
    });

    it('lists the credentials outside a tenant with elsewhere, by creator too', async (ctx) => {
      const { ids } = await openDirectory(factory, ctx);
      expect(await ids({ tenantId: 't1', elsewhere: true, limit: 10 })).toEqual(['cr-c', 'cr-e']);
      expect(await ids({ tenantId: 't2', elsewhere: true, limit: 10 })).toEqual(['cr-b', 'cr-a', 'cr-e']);
      expect(await ids({ tenantId: 't1', elsewhere: true, creatorId: 'p2', limit: 10 })).toEqual(['cr-e']);
      expect(await ids({ tenantId: 't3', elsewhere: true, creatorId: 'p1', limit: 10 })).toEqual([
        'cr-c',
        'cr-d',
        'cr-a',
      ]);
      expect(await ids({ tenantId: 't2', elsewhere: false, limit: 10 })).toEqual(['cr-c', 'cr-d']);
    });

    it('lists a credential with two tenants under either, and elsewhere under neither', async (ctx) => {
      const { ids } = await openDirectory(factory, ctx);
      expect(await ids({ tenantId: 't1', limit: 10 })).toContain('cr-d');
      expect(await ids({ tenantId: 't2', limit: 10 })).toContain('cr-d');
      expect(await ids({ tenantId: 't1', elsewhere: true, limit: 10 })).not.toContain('cr-d');
      expect(await ids({ tenantId: 't2', elsewhere: true, limit: 10 })).not.toContain('cr-d');
      expect(await ids({ tenantId: 't', limit: 10 })).toEqual([]);
    });

    it('returns at most limit credentials, and none for a limit of zero', async (ctx) => {
      const { ids } = await openDirectory(factory, ctx);
      expect(await ids({ tenantId: 't1', limit: 2 })).toEqual(['cr-d', 'cr-b']);
      expect(await ids({ tenantId: 't1', elsewhere: true, limit: 1 })).toEqual(['cr-c']);
      expect(await ids({ tenantId: 't1', limit: 0 })).toEqual([]);
      expect(await ids({ tenantId: 't1', limit: 1_000 })).toEqual(['cr-d', 'cr-b', 'cr-a']);
    });

    it('still lists revoked credentials, with their revocation time', async (ctx) => {
      const { store, list } = await openDirectory(factory, ctx);
      expect(await store.revoke('cr-b', 50)).toBe(true);
      const found = await list({ tenantId: 't1', limit: 10 });
      expect(found.map((record) => [record.id, record.revokedAt])).toEqual([
        ['cr-d', null],
        ['cr-b', 50],
        ['cr-a', null],
      ]);
    });

    it('refuses a limit below 0, above 1000 or fractional with a RangeError naming the bound', async (ctx) => {
      const { list } = await openDirectory(factory, ctx);
      for (const limit of [-1, 1_001, 2.5]) {
        await expect(list({ tenantId: 't1', limit })).rejects.toThrow(RangeError);
        await expect(list({ tenantId: 't1', limit })).rejects.toThrow(/\b1000\b/);
      }
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
