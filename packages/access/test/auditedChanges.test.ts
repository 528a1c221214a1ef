// A credential's creation or revocation, and a switch change, commit with
// their audit row when the host passes its unit of work (I15, I5, I6): an
// audit append that fails leaves no credential, no revocation and no switch
// change behind, and a reader never sees the change without its row. On
// SQLite and on PostgreSQL, the stores a host would use.

import type { AuditRow, AuditStore, UnitOfWork } from '@gatehousejs/core';
import { createSqliteStores } from '@gatehousejs/stores';
import { createPostgresStores } from '@gatehousejs/stores/postgres';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../stores/test/fixtures/postgres.js';
import { createCredentials, createSwitches } from '../src/index.js';

const available = await postgresAvailable();

interface Stores {
  readonly credentials: Parameters<typeof createCredentials>[0]['store'];
  readonly switches: Parameters<typeof createSwitches>[0]['store'];
  readonly audit: AuditStore;
  readonly unitOfWork: UnitOfWork<never>;
}

/** An audit store that throws on append while `failing` is set, after the row would have been written. */
function breakable(audit: AuditStore) {
  const state = { failing: false };
  const store: AuditStore = {
    async append(row: AuditRow, unit?: unknown) {
      await audit.append(row, unit);
      if (state.failing) throw new Error('The audit disk is full.');
    },
    list: (query) => audit.list(query),
  };
  return { store, state };
}

function suite(name: string, open: () => Promise<{ stores: Stores; close(): Promise<void> }>, skip = false) {
  describe.skipIf(skip)(`${name}: with the host's unit of work`, () => {
    const build = async () => {
      const { stores, close } = await open();
      const audit = breakable(stores.audit);
      const people = { current: async () => ({ active: true, rights: ['notes.read'] as const }) };
      const common = { audit: audit.store, unitOfWork: stores.unitOfWork as UnitOfWork };
      const credentials = createCredentials({
        store: stores.credentials,
        people,
        rights: ['notes.read'],
        ...common,
      });
      const switches = createSwitches({ store: stores.switches, ...common });
      const rows = async (action: string) =>
        (await stores.audit.list({ tenantId: 't1', limit: 100 })).filter((row) => row.action === action)
          .length;
      const mint = () =>
        credentials.mint({ tenantIds: ['t1'], creatorId: 'p1', rights: ['notes.read'], clientLabel: 'desk' });
      return { stores, audit, credentials, switches, rows, mint, close };
    };

    it('mints nothing when the audit row cannot be written, and both land together when it can', async () => {
      const t = await build();
      try {
        t.audit.state.failing = true;
        const error = await t.mint().catch((e: unknown) => e);
        expect(String(error)).toContain('audit disk');
        expect(await t.rows('token.create')).toBe(0);
        t.audit.state.failing = false;
        const { credential } = await t.mint();
        expect(await t.stores.credentials.findById(credential.id)).toMatchObject({ revokedAt: null });
        expect(await t.rows('token.create')).toBe(1);
      } finally {
        await t.close();
      }
    });

    it('keeps a credential live when the revocation’s audit row cannot be written', async () => {
      const t = await build();
      try {
        const { credential } = await t.mint();
        t.audit.state.failing = true;
        await expect(t.credentials.revoke(credential.id, { actorId: 'p1', channel: 'cli' })).rejects.toThrow(
          'audit disk',
        );
        expect((await t.stores.credentials.findById(credential.id))?.revokedAt).toBeNull();
        expect(await t.rows('token.revoke')).toBe(0);
        t.audit.state.failing = false;
        expect(await t.credentials.revoke(credential.id, { actorId: 'p1', channel: 'cli' })).toBe(true);
        expect((await t.stores.credentials.findById(credential.id))?.revokedAt).not.toBeNull();
        expect(await t.rows('token.revoke')).toBe(1);
        // a second revocation changes nothing and writes no row
        expect(await t.credentials.revoke(credential.id, { actorId: 'p1', channel: 'cli' })).toBe(false);
        expect(await t.rows('token.revoke')).toBe(1);
      } finally {
        await t.close();
      }
    });

    it('leaves a switch as it was when its audit row cannot be written', async () => {
      const t = await build();
      try {
        t.audit.state.failing = true;
        await expect(
          t.switches.setTenantAccess('t1', false, { actorId: 'p1', channel: 'cli' }),
        ).rejects.toThrow('audit disk');
        expect(await t.switches.tenantAccess('t1')).toBe(true);
        expect(await t.rows('switch.set')).toBe(0);
        t.audit.state.failing = false;
        await t.switches.setTenantAccess('t1', false, { actorId: 'p1', channel: 'cli' });
        expect(await t.switches.tenantAccess('t1')).toBe(false);
        expect(await t.rows('switch.set')).toBe(1);
      } finally {
        await t.close();
      }
    });
  });
}

suite('SQLite', async () => {
  const db = new Database(':memory:');
  const stores = createSqliteStores(db);
  return { stores: stores as unknown as Stores, close: async () => void db.close() };
});

const databases: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
});

suite(
  'PostgreSQL',
  async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const stores = await createPostgresStores(database.pool);
    return { stores: stores as unknown as Stores, close: async () => undefined };
  },
  !available,
);
