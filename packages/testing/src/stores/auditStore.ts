import type { AuditRow, AuditStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently, openFixture, restarted, type StoreFactory } from './fixture.js';

const row = (id: string, overrides: Partial<AuditRow> = {}): AuditRow => ({
  id,
  at: 1_000,
  channel: 'mcp',
  tenantId: 't1',
  connectionId: 'c1',
  clientName: 'claude',
  actorId: 'p1',
  action: 'create_booking',
  outcome: 'ok',
  objectIds: [`b-${id}`],
  note: null,
  ...overrides,
});

/** Time-sortable ids, like ULIDs: `01J0000000000000000000000A`, … */
const ulid = (i: number): string => `01J${i.toString(36).toUpperCase().padStart(23, '0')}`;

/**
 * Registers the contract every {@link AuditStore} must keep (I15): rows come
 * back exactly as appended, newest first, filtered by tenant and connection;
 * the `before` cursor pages through all rows without gaps or repeats; `limit`
 * is honoured; 500 concurrent appends all land; rows survive a restart.
 *
 * @example
 * describeAuditStore('MemoryAuditStore', () => ({ store: new MemoryAuditStore() }));
 */
export function describeAuditStore(name: string, factory: StoreFactory<AuditStore>): void {
  describe(name, () => {
    it('lists rows newest first, filtered by tenant and by connection', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const rows = [
        row(ulid(1)),
        row(ulid(2), { connectionId: 'c2' }),
        row(ulid(3)),
        row(ulid(4), { tenantId: 't2' }),
      ];
      for (const r of rows) await store.append(r);
      const ids = async (q: Parameters<AuditStore['list']>[0]) => (await store.list(q)).map((r) => r.id);
      expect(await ids({ tenantId: 't1', connectionId: 'c1', limit: 10 })).toEqual([ulid(3), ulid(1)]);
      expect(await ids({ tenantId: 't1', limit: 10 })).toEqual([ulid(3), ulid(2), ulid(1)]);
      expect(await ids({ connectionId: 'c1', limit: 10 })).toEqual([ulid(4), ulid(3), ulid(1)]);
      expect(await ids({ limit: 10 })).toEqual([ulid(4), ulid(3), ulid(2), ulid(1)]);
    });

    it('pages through every row with the before cursor, without gaps or repeats', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      for (let i = 1; i <= 23; i++) await store.append(row(ulid(i), { tenantId: i % 3 === 0 ? 't2' : 't1' }));
      const seen: string[] = [];
      let before: string | undefined;
      for (let page = 0; page < 10; page++) {
        const rows = await store.list({ tenantId: 't1', limit: 4, ...(before !== undefined && { before }) });
        if (rows.length === 0) break;
        expect(rows.length).toBeLessThanOrEqual(4);
        seen.push(...rows.map((r) => r.id));
        before = rows.at(-1)?.id;
      }
      const expected = Array.from({ length: 23 }, (_, i) => i + 1)
        .filter((i) => i % 3 !== 0)
        .reverse()
        .map(ulid);
      expect(seen).toEqual(expected);
    });

    it('returns at most limit rows, and none for a limit of zero', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      for (let i = 1; i <= 5; i++) await store.append(row(ulid(i)));
      expect((await store.list({ limit: 2 })).map((r) => r.id)).toEqual([ulid(5), ulid(4)]);
      expect(await store.list({ limit: 0 })).toEqual([]);
    });

    it('returns every field exactly as appended, nulls included', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const full = row(ulid(1), { objectIds: ['b1', 'c7'], note: 'separate: second visit' });
      const bare = row(ulid(2), {
        channel: 'cli',
        tenantId: null,
        connectionId: null,
        clientName: null,
        actorId: null,
        action: 'switch.set',
        outcome: 'refused',
        objectIds: [],
      });
      await store.append(full);
      await store.append(bare);
      expect(await store.list({ limit: 10 })).toEqual([bare, full]);
    });

    it('keeps every one of 500 concurrent appends', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      await concurrently(500, (i) => store.append(row(ulid(i + 1))));
      const rows = await store.list({ limit: 1_000 });
      expect(new Set(rows.map((r) => r.id)).size).toBe(500);
    });

    it('keeps rows through a restart', async (ctx) => {
      const fixture = await openFixture(factory, ctx);
      await fixture.store.append(row(ulid(1)));
      await fixture.store.append(row(ulid(2), { outcome: 'violation' }));
      const store = await restarted(fixture, ctx);
      expect(await store.list({ limit: 10 })).toEqual([row(ulid(2), { outcome: 'violation' }), row(ulid(1))]);
    });
  });
}
