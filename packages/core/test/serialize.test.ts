// The duplicate check (I11) asks the unit of work to serialize units on the
// business key before it looks for an existing row, so two concurrent creates
// of one key on a database that runs units side by side (PostgreSQL) cannot
// both find nothing and both insert.

import { describe, expect, it } from 'vitest';
import { withGuards } from '../../../test/withGuards.js';
import {
  type Connection,
  createGatehouse,
  MemoryAuditStore,
  MemoryReplayStore,
  type UnitOfWork,
} from '../src/index.js';
import { bookingCreateTools, listPresenter } from './fixtures.js';

interface Handle {
  readonly id: number;
}

type Booking = {
  id: string;
  tenant: string;
  customer: string;
  day: string;
};

/** A unit of work that records each serialize call with the handle of the unit it came from. */
class SerializingUnitOfWork implements UnitOfWork<Handle> {
  readonly atomic = true;
  readonly calls: { handle: number; key: string }[] = [];
  readonly events: string[] = [];
  #next = 0;

  async run<T>(work: (handle: Handle) => Promise<T>): Promise<T> {
    const handle = { id: ++this.#next };
    this.events.push(`begin ${handle.id}`);
    const result = await work(handle);
    this.events.push(`commit ${handle.id}`);
    return result;
  }

  async serialize(handle: Handle, key: string): Promise<void> {
    this.calls.push({ handle: handle.id, key });
    this.events.push(`serialize ${handle.id}`);
  }
}

function bookingServer(unitOfWork: SerializingUnitOfWork) {
  const rows: Booking[] = [];
  const gh = createGatehouse({
    rights: ['bookings.write'] as const,
    services: (connection) => ({
      find: (customer: string, day: string) => {
        unitOfWork.events.push('find');
        return rows.find((b) => b.tenant === connection.tenantId && b.customer === customer && b.day === day);
      },
      create: (customer: string, day: string) => {
        const booking = { id: `b${rows.length + 1}`, tenant: connection.tenantId, customer, day };
        rows.push(booking);
        return booking;
      },
    }),
  });
  const presenter = listPresenter<Booking>(['id', 'customer', 'day']);
  const [create, update] = bookingCreateTools(gh, presenter, (id, day) => ({
    id,
    tenant: 't1',
    customer: 'c',
    day,
  }));
  const server = gh.createServer(
    withGuards({
      name: 'bookings',
      version: '1.0.0',
      tools: [create, update],
      authenticate: async () => ({ ok: false, status: 401, reason: 'not used' }),
      audit: new MemoryAuditStore(),
      replay: { store: new MemoryReplayStore() },
      unitOfWork,
    }),
  );
  return { server, rows };
}

const connection = (tenantId = 't1'): Connection<'bookings.write'> => ({
  connectionId: `conn_${tenantId}`,
  tenantId,
  creatorId: 'p1',
  clientName: 'test',
  channel: 'mcp',
  rights: new Set(['bookings.write'] as const),
});

describe('UnitOfWork.serialize', () => {
  it('is called with the same key for two creates with the same business key, inside their units, before the lookup', async () => {
    const unitOfWork = new SerializingUnitOfWork();
    const { server, rows } = bookingServer(unitOfWork);
    const first = await server.callTool(connection(), 'create_booking', { customer: 'c1', day: 'mon' });
    // other arguments beyond the business key: not a replay, the same key
    const second = await server.callTool(connection(), 'create_booking', {
      customer: 'c1',
      day: 'mon',
      note: 'again',
    });
    expect(first.structuredContent).toMatchObject({ status: 'ok', result: { id: 'b1' } });
    expect(second.structuredContent).toMatchObject({ error: { code: 'duplicate' } });
    expect(rows).toHaveLength(1);
    expect(unitOfWork.calls.map((c) => c.handle)).toEqual([1, 2]);
    expect(unitOfWork.calls[0]!.key).toBe(unitOfWork.calls[1]!.key);
    expect(unitOfWork.calls[0]!.key).toContain('create_booking');
    expect(unitOfWork.events.slice(0, 4)).toEqual(['begin 1', 'serialize 1', 'find', 'commit 1']);
  });

  it('is called with different keys for other business keys and other tenants', async () => {
    const unitOfWork = new SerializingUnitOfWork();
    const { server, rows } = bookingServer(unitOfWork);
    await server.callTool(connection(), 'create_booking', { customer: 'c1', day: 'mon' });
    await server.callTool(connection(), 'create_booking', { customer: 'c1', day: 'tue' });
    await server.callTool(connection(), 'create_booking', { customer: 'c2', day: 'mon' });
    await server.callTool(connection('t2'), 'create_booking', { customer: 'c1', day: 'mon' });
    expect(rows).toHaveLength(4);
    expect(new Set(unitOfWork.calls.map((c) => c.key)).size).toBe(4);
  });

  it('is not called for a separate create: the override creates anyway', async () => {
    const unitOfWork = new SerializingUnitOfWork();
    const { server, rows } = bookingServer(unitOfWork);
    await server.callTool(connection(), 'create_booking', { customer: 'c1', day: 'mon' });
    const separate = await server.callTool(connection(), 'create_booking', {
      customer: 'c1',
      day: 'mon',
      separate: true,
      reason: 'a second visit',
    });
    expect(separate.structuredContent).toMatchObject({ status: 'ok', result: { id: 'b2' } });
    expect(rows).toHaveLength(2);
    expect(unitOfWork.calls).toHaveLength(1);
  });
});
