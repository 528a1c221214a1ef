// A call whose replay lease ran out may be taken over by an identical call
// (I10). The late call cannot complete (its fence is stale), but before this
// it could still answer with what its own unit of work found: the other
// call's booking as a `duplicate`, the other call's cancellation as a
// refusal or a crash. The client then read a refusal for a change that
// happened exactly once. Now every ending of a taken-over call is
// `store_unavailable` with the retry hint, and the retry returns the replay.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  createGatehouse,
  MemoryAuditStore,
  MemoryReplayStore,
  type ReplayStore,
  ToolError,
  type UnitOfWork,
} from '../src/index.js';
import { bookingCreateTools, connectionWith, listPresenter } from './fixtures.js';

const LEASE_MS = 1_000;

type Booking = {
  id: string;
  customer: string;
  day: string;
  status: 'live' | 'cancelled';
};

/** An atomic unit of work over an array of rows; the next unit to start can be held at its door. */
class GatedUnitOfWork implements UnitOfWork<Booking[]> {
  readonly atomic = true;
  #gate: Promise<void> | undefined;
  #entered: (() => void) | undefined;

  constructor(readonly rows: Booking[]) {}

  /** Holds the next unit before it starts; resolves `entered` once it waits, and returns the opener. */
  holdNext(): { entered: Promise<void>; open: () => void } {
    let open!: () => void;
    this.#gate = new Promise((resolve) => {
      open = resolve;
    });
    const entered = new Promise<void>((resolve) => {
      this.#entered = resolve;
    });
    return { entered, open };
  }

  async run<T>(work: (handle: Booking[]) => Promise<T>): Promise<T> {
    const gate = this.#gate;
    if (gate) {
      this.#gate = undefined;
      this.#entered?.();
      await gate;
    }
    const before = this.rows.map((row) => ({ ...row }));
    try {
      return await work(this.rows);
    } catch (error) {
      this.rows.splice(0, this.rows.length, ...before);
      throw error;
    }
  }
}

function bookingDesk(options: { replayStore?: (store: ReplayStore) => ReplayStore } = {}) {
  const rows: Booking[] = [];
  const unitOfWork = new GatedUnitOfWork(rows);
  const audit = new MemoryAuditStore();
  const internalErrors: unknown[] = [];
  let now = Date.parse('2030-05-04T09:00:00Z');
  const gh = createGatehouse({
    rights: ['bookings.write'] as const,
    services: () => ({
      find: (customer: string, day: string) =>
        rows.find((b) => b.customer === customer && b.day === day && b.status === 'live'),
      create(customer: string, day: string): Booking {
        const booking: Booking = { id: `b${rows.length + 1}`, customer, day, status: 'live' };
        rows.push(booking);
        return booking;
      },
      cancel(id: string, crash: boolean): Booking {
        const booking = rows.find((b) => b.id === id);
        if (booking?.status !== 'live') {
          if (crash) throw new Error(`UNIQUE constraint failed: cancellations.booking_id (${id})`);
          throw new ToolError({
            code: 'not_found',
            message: `No live booking ${id}.`,
            fix: 'List bookings.',
          });
        }
        booking.status = 'cancelled';
        return booking;
      },
    }),
  });
  const presenter = listPresenter<Booking>(['id', 'customer', 'day', 'status']);
  const [create, update] = bookingCreateTools(gh, presenter, (id, day) => ({
    id,
    customer: 'c',
    day,
    status: 'live' as const,
  }));
  const cancel = gh.defineTool({
    name: 'cancel_booking',
    description: 'Cancels a booking.',
    effect: 'write',
    requires: ['bookings.write'],
    input: z.object({ id: z.string(), crash: z.boolean().optional() }),
    presenter,
    run: ({ input: i, services }) => services.cancel(i.id, i.crash === true),
  });
  const memory = new MemoryReplayStore();
  const server = gh.createServer(
    withGuards({
      name: 'bookings',
      version: '1.0.0',
      tools: [create, update, cancel],
      authenticate: async () => ({ ok: false, status: 401, reason: 'not used' }),
      audit,
      replay: { store: options.replayStore ? options.replayStore(memory) : memory, leaseMs: LEASE_MS },
      unitOfWork,
      clock: () => new Date(now),
      onError: (error) => internalErrors.push(error),
    }),
  );
  const connection = connectionWith(['bookings.write'] as const);
  return {
    rows,
    audit,
    internalErrors,
    call: (tool: string, args: Record<string, unknown>) => server.callTool(connection, tool, args),
    /** Starts `tool` and holds it at its unit of work until the lease ran out and `meanwhile` is done. */
    async lateCall(tool: string, args: Record<string, unknown>, meanwhile: () => Promise<void>) {
      const held = unitOfWork.holdNext();
      const late = server.callTool(connection, tool, args);
      await held.entered;
      now += LEASE_MS;
      await meanwhile();
      held.open();
      return late;
    },
    /** The actions of the audit rows with outcome ok, oldest first. */
    okAudits: async () =>
      (await audit.list({ tenantId: 't1', limit: 100 }))
        .filter((row) => row.outcome === 'ok')
        .map((row) => row.action)
        .reverse(),
  };
}

const FENCED_OUT = { error: { code: 'store_unavailable', message: expect.stringContaining('took over') } };

describe('a call whose replay lease was taken over', () => {
  it('answers store_unavailable, not duplicate, when the call that took over created the row first', async () => {
    const desk = bookingDesk();
    const args = { customer: 'c1', day: 'mon' };
    let takeover: Awaited<ReturnType<typeof desk.call>> | undefined;
    const late = await desk.lateCall('create_booking', args, async () => {
      takeover = await desk.call('create_booking', args);
    });
    expect(takeover?.structuredContent).toMatchObject({ status: 'ok', result: { id: 'b1' } });
    expect(late.structuredContent).toMatchObject(FENCED_OUT);
    expect(late.structuredContent).not.toMatchObject({ error: { code: 'duplicate' } });
    const retried = await desk.call('create_booking', args);
    expect(retried.structuredContent).toMatchObject({ replayed: true, result: { id: 'b1' } });
    expect(desk.rows).toHaveLength(1);
    expect(await desk.okAudits()).toEqual(['create_booking']);
  });

  it('answers store_unavailable, not the tool error, when its run meets the other call’s change', async () => {
    const desk = bookingDesk();
    await desk.call('create_booking', { customer: 'c1', day: 'mon' });
    let takeover: Awaited<ReturnType<typeof desk.call>> | undefined;
    const late = await desk.lateCall('cancel_booking', { id: 'b1' }, async () => {
      takeover = await desk.call('cancel_booking', { id: 'b1' });
    });
    expect(takeover?.structuredContent).toMatchObject({ status: 'ok', result: { status: 'cancelled' } });
    expect(late.structuredContent).toMatchObject(FENCED_OUT);
    const retried = await desk.call('cancel_booking', { id: 'b1' });
    expect(retried.structuredContent).toMatchObject({
      replayed: true,
      result: { id: 'b1', status: 'cancelled' },
    });
    expect(desk.rows).toEqual([{ id: 'b1', customer: 'c1', day: 'mon', status: 'cancelled' }]);
    expect(await desk.okAudits()).toEqual(['create_booking', 'cancel_booking']);
  });

  it('answers store_unavailable when its run crashes on the other call’s change, and still reports the crash', async () => {
    const desk = bookingDesk();
    await desk.call('create_booking', { customer: 'c1', day: 'mon' });
    const args = { id: 'b1', crash: true };
    const late = await desk.lateCall('cancel_booking', args, async () => {
      await desk.call('cancel_booking', args);
    });
    expect(late.structuredContent).toMatchObject(FENCED_OUT);
    expect(desk.internalErrors).toHaveLength(1);
    expect(String(desk.internalErrors[0])).toContain('UNIQUE constraint failed');
    expect(JSON.stringify(late)).not.toContain('UNIQUE');
    expect((await desk.call('cancel_booking', args)).structuredContent).toMatchObject({ replayed: true });
  });

  it('keeps its own refusal when nobody took its claim over, even after its lease ran out', async () => {
    const desk = bookingDesk();
    await desk.call('create_booking', { customer: 'c1', day: 'mon' });
    // the same business key with other arguments: another fingerprint, a genuine duplicate
    const late = await desk.lateCall(
      'create_booking',
      { customer: 'c1', day: 'mon', separate: false },
      async () => {},
    );
    expect(late.structuredContent).toMatchObject({
      error: { code: 'duplicate', details: { existing_id: 'b1' } },
    });
    const gone = await desk.lateCall('cancel_booking', { id: 'b9' }, async () => {});
    expect(gone.structuredContent).toMatchObject({ error: { code: 'not_found' } });
    expect(desk.rows).toHaveLength(1);
  });

  it('keeps its own refusal when the replay store cannot say whether the claim is still its own', async () => {
    const desk = bookingDesk({
      replayStore: (store) => ({
        begin: (...args) => store.begin(...args),
        complete: (...args) => store.complete(...args),
        release: (...args) => store.release(...args),
        renew: (...args) => store.renew(...args),
        holds: () => Promise.reject(new Error('replay table unreachable')),
      }),
    });
    await desk.call('create_booking', { customer: 'c1', day: 'mon' });
    const refused = await desk.call('cancel_booking', { id: 'b9' });
    expect(refused.structuredContent).toMatchObject({ error: { code: 'not_found' } });
    expect(JSON.stringify(refused)).not.toContain('unreachable');
  });
});
