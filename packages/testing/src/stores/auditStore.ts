import type { AuditQuery, AuditRow, AuditStore } from '@gatehousejs/core';
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

/** Epoch milliseconds in this century, so a store keeping `at` in 32 bits fails. */
const T = 1_700_000_000_000;

/**
 * Registers the contract every {@link AuditStore} must keep (I15): rows come
 * back exactly as appended, newest first, filtered by tenant (`null`: rows with
 * none), connection, channel, actor, action and `from` (inclusive) / `to`
 * (exclusive) on `at`, all ANDed; the `before` cursor pages through all rows,
 * filtered or not, without gaps or repeats; a filter or cursor holding NUL
 * is answered, as the memory store compares; `limit` is honoured; 500
 * concurrent appends all land; rows survive a restart.
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

    it('filters by channel, actor and action, each alone and all together', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const rows = [
        row(ulid(1)),
        row(ulid(2), { channel: 'api' }),
        row(ulid(3), { actorId: 'p2' }),
        row(ulid(4), { action: 'cancel_booking' }),
        row(ulid(5), { channel: 'cli', actorId: null, action: 'switch.set', tenantId: null }),
        row(ulid(6)),
        row(ulid(7), { tenantId: 't2' }),
      ];
      for (const r of rows) await store.append(r);
      const ids = async (q: AuditQuery) => (await store.list(q)).map((r) => r.id);
      expect(await ids({ channel: 'mcp', limit: 10 })).toEqual([7, 6, 4, 3, 1].map(ulid));
      expect(await ids({ channel: 'api', limit: 10 })).toEqual([ulid(2)]);
      expect(await ids({ actorId: 'p2', limit: 10 })).toEqual([ulid(3)]);
      expect(await ids({ actorId: 'p1', limit: 10 })).toEqual([7, 6, 4, 2, 1].map(ulid));
      expect(await ids({ action: 'cancel_booking', limit: 10 })).toEqual([ulid(4)]);
      expect(await ids({ action: 'switch.set', limit: 10 })).toEqual([ulid(5)]);
      const all = { channel: 'mcp', actorId: 'p1', action: 'create_booking', limit: 10 } as const;
      expect(await ids(all)).toEqual([7, 6, 1].map(ulid));
      expect(await ids({ ...all, tenantId: 't1' })).toEqual([ulid(6), ulid(1)]);
      expect(await ids({ ...all, channel: 'MCP' })).toEqual([]);
      expect(await ids({ ...all, actorId: 'p3' })).toEqual([]);
    });

    it('filters by channel, actor, action and time range together', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const rows = [
        row(ulid(1), { at: T }),
        row(ulid(2), { at: T + 1, channel: 'api' }),
        row(ulid(3), { at: T + 2 }),
        row(ulid(4), { at: T + 3, actorId: 'p2' }),
        row(ulid(5), { at: T + 4, action: 'cancel_booking' }),
        row(ulid(6), { at: T + 5 }),
        row(ulid(7), { at: T + 6 }),
      ];
      for (const r of rows) await store.append(r);
      const ids = async (q: AuditQuery) => (await store.list(q)).map((r) => r.id);
      const all = { channel: 'mcp', actorId: 'p1', action: 'create_booking', limit: 10 } as const;
      expect(await ids({ ...all, from: T + 1, to: T + 6 })).toEqual([ulid(6), ulid(3)]);
      expect(await ids({ ...all, from: T, to: T + 7 })).toEqual([7, 6, 3, 1].map(ulid));
      expect(await ids({ ...all, from: T + 3, to: T + 5 })).toEqual([]);
    });

    it('lists only the rows without a tenant for tenantId null, and any tenant without tenantId', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const global = { tenantId: null, connectionId: null, channel: 'cli', action: 'switch.set' } as const;
      const rows = [
        row(ulid(1)),
        row(ulid(2), global),
        row(ulid(3), { tenantId: 't2' }),
        row(ulid(4), { ...global, action: 'token.revoke' }),
        row(ulid(5), { tenantId: '' }),
      ];
      for (const r of rows) await store.append(r);
      const ids = async (q: AuditQuery) => (await store.list(q)).map((r) => r.id);
      expect(await ids({ tenantId: null, limit: 10 })).toEqual([ulid(4), ulid(2)]);
      expect(await ids({ tenantId: null, action: 'switch.set', limit: 10 })).toEqual([ulid(2)]);
      expect(await ids({ tenantId: null, before: ulid(4), limit: 10 })).toEqual([ulid(2)]);
      expect(await ids({ tenantId: 't1', limit: 10 })).toEqual([ulid(1)]);
      expect(await ids({ tenantId: '', limit: 10 })).toEqual([ulid(5)]);
      expect(await ids({ limit: 10 })).toEqual([5, 4, 3, 2, 1].map(ulid));
    });

    it('takes from inclusive and to exclusive, to the millisecond', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const times = [T - 1, T, T + 1, T + 999, T + 1_000];
      for (const [i, at] of times.entries()) await store.append(row(ulid(i + 1), { at }));
      const ats = async (q: Omit<AuditQuery, 'limit'>) =>
        (await store.list({ ...q, limit: 10 })).map((r) => r.at - T);
      expect(await ats({ from: T })).toEqual([1_000, 999, 1, 0]);
      expect(await ats({ to: T + 1_000 })).toEqual([999, 1, 0, -1]);
      expect(await ats({ from: T, to: T + 1_000 })).toEqual([999, 1, 0]);
      expect(await ats({ from: T, to: T + 1 })).toEqual([0]);
      expect(await ats({ from: T + 1, to: T + 1 })).toEqual([]);
      expect(await ats({ from: T + 1_000 })).toEqual([1_000]);
      expect(await ats({ to: T })).toEqual([-1]);
      expect(await ats({ from: T + 1_001 })).toEqual([]);
    });

    it('pages filtered rows with the before cursor, without gaps or repeats', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      const rows = Array.from({ length: 30 }, (_, k) =>
        row(ulid(k + 1), {
          at: T + k * 10,
          channel: k % 4 === 0 ? 'api' : 'mcp',
          actorId: k % 5 === 0 ? 'p2' : 'p1',
          action: k % 7 === 0 ? 'cancel_booking' : 'create_booking',
          tenantId: k % 3 === 0 ? null : 't1',
        }),
      );
      for (const r of rows) await store.append(r);
      const filter = {
        tenantId: 't1',
        channel: 'mcp',
        actorId: 'p1',
        action: 'create_booking',
        from: T + 20,
        to: T + 270,
      } as const;
      const seen: string[] = [];
      let before: string | undefined;
      for (let page = 0; page < 20; page++) {
        const found = await store.list({ ...filter, limit: 3, ...(before !== undefined && { before }) });
        if (found.length === 0) break;
        expect(found.length).toBeLessThanOrEqual(3);
        seen.push(...found.map((r) => r.id));
        before = found.at(-1)?.id;
      }
      const expected = rows
        .filter(
          (r) =>
            r.tenantId === 't1' &&
            r.channel === 'mcp' &&
            r.actorId === 'p1' &&
            r.action === 'create_booking' &&
            r.at >= filter.from &&
            r.at < filter.to,
        )
        .map((r) => r.id)
        .reverse();
      expect(expected.length).toBeGreaterThan(6);
      expect(seen).toEqual(expected);
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

    it('answers filters and a cursor holding NUL (which a caller can send) without failing', async (ctx) => {
      const { store } = await openFixture(factory, ctx);
      for (let i = 1; i <= 4; i++) await store.append(row(ulid(i)));
      const ids = async (q: AuditQuery) => (await store.list(q)).map((r) => r.id);
      for (const key of ['tenantId', 'connectionId', 'channel', 'actorId', 'action'] as const)
        expect(await ids({ [key]: 'c1\u0000', limit: 10 }), key).toEqual([]);
      // a row id never holds NUL: the ids before `x\0…` are those up to `x`, included
      expect(await ids({ before: `${ulid(2)}\u0000tail`, limit: 10 })).toEqual([ulid(2), ulid(1)]);
      expect(await ids({ before: '\u0000', limit: 10 })).toEqual([]);
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
