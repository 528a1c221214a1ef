import type { CallResult, ClaimGuard, Lease } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently } from '../stores/fixture.js';
import { deskConnection, guardDesk } from './desk.js';

/** Builds the claim guard under test with the lease a case needs. */
export type ClaimGuardFactory = (lease: Lease) => ClaimGuard;

const statusOf = (result: CallResult) => {
  const s = result.structuredContent as { status: string; replayed?: boolean; error?: { code: string } };
  return s.status === 'ok' ? (s.replayed ? 'replayed' : 'ok') : (s.error?.code ?? s.status);
};

const defer = () => {
  let open = () => {};
  const closed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { closed, open };
};

/**
 * Registers the contract every claim guard must keep (I10), proved through
 * a server: 1,000 concurrent identical writes run once (one row, one audit
 * row) and a re-send answers the first result; different arguments are
 * different calls; a slow call's claim is renewed, so an identical call
 * after its lease would have lapsed is still refused; a claim whose lease
 * lapsed is taken over, and the call that held it is fenced out (its unit
 * of work rolls back, so only the taker's row stands); a refused call
 * releases its claim, so the same call runs when sent again. The built-in
 * `replayGuard` passes it; so must a team's own.
 *
 * @example
 * describeClaimGuard('replayGuard', (lease) => replayGuard({ store: new MemoryReplayStore(), ...lease }));
 */
export function describeClaimGuard(name: string, factory: ClaimGuardFactory): void {
  describe(name, () => {
    it('runs 1,000 concurrent identical writes once: one row, one audit row, and a re-send answers the first result', async () => {
      const desk = guardDesk({ claim: factory({ leaseMs: 10_000, renewMs: 2_000 }) });
      const held = defer();
      desk.toggles.hold = held.closed;
      const calls = concurrently(1000, (i) =>
        desk.server.callTool(deskConnection(), 'add_row', { text: 'ada' }, { requestId: i }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      held.open();
      const answers = (await calls).map(statusOf);
      expect(answers.filter((a) => a === 'ok')).toHaveLength(1);
      expect(answers.filter((a) => a !== 'ok' && a !== 'replayed' && a !== 'still_running')).toEqual([]);
      expect(desk.rows).toEqual(['ada']);
      expect(desk.audited()).toEqual(['add_row']);
      expect(desk.runs()).toBe(1);
      const again = await desk.server.callTool(deskConnection(), 'add_row', { text: 'ada' });
      expect(statusOf(again)).toBe('replayed');
      expect(desk.rows).toHaveLength(1);
    });

    it('runs calls with different arguments, or of another connection, each once', async () => {
      const desk = guardDesk({ claim: factory({ leaseMs: 10_000, renewMs: 2_000 }) });
      await concurrently(10, (i) => desk.server.callTool(deskConnection(), 'add_row', { text: `row ${i}` }));
      await desk.server.callTool(deskConnection({ connectionId: 'c2' }), 'add_row', { text: 'row 0' });
      expect([...desk.rows].sort()).toEqual(
        [...Array.from({ length: 10 }, (_, i) => `row ${i}`), 'row 0'].sort(),
      );
    });

    it('renews a slow call’s claim: an identical call after the lease would have lapsed is still refused, and nothing runs twice', async () => {
      const desk = guardDesk({ claim: factory({ leaseMs: 300, renewMs: 50 }) });
      const held = defer();
      desk.toggles.hold = held.closed;
      const slow = desk.server.callTool(deskConnection(), 'add_row', { text: 'slow' });
      await new Promise((resolve) => setTimeout(resolve, 700));
      const meanwhile = await desk.server.callTool(deskConnection(), 'add_row', { text: 'slow' });
      expect(statusOf(meanwhile)).toBe('still_running');
      held.open();
      expect(statusOf(await slow)).toBe('ok');
      expect(desk.rows).toEqual(['slow']);
      expect(desk.runs()).toBe(1);
    });

    it('takes over a claim whose lease lapsed, and fences out its holder: only the taker’s row and audit row stand', async () => {
      const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
      // renewals come every minute of real time: within the case, none lands
      const desk = guardDesk({
        claim: factory({ leaseMs: 120_000, renewMs: 60_000 }),
        clock: () => new Date(clock.now),
      });
      const held = defer();
      desk.toggles.hold = held.closed;
      const first = desk.server.callTool(deskConnection(), 'add_row', { text: 'once' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      clock.now += 200_000; // the first call's lease lapsed: its process looks dead
      desk.toggles.hold = undefined;
      const taker = await desk.server.callTool(deskConnection(), 'add_row', { text: 'once' });
      expect(statusOf(taker)).toBe('ok');
      held.open();
      expect(statusOf(await first)).toBe('store_unavailable');
      expect(desk.rows).toEqual(['once']);
      expect(desk.audited()).toEqual(['add_row']);
      expect(statusOf(await desk.server.callTool(deskConnection(), 'add_row', { text: 'once' }))).toBe(
        'replayed',
      );
      expect(desk.rows).toHaveLength(1);
    });

    it('releases the claim of a refused call: the same call runs when sent again, once', async () => {
      const desk = guardDesk({ claim: factory({ leaseMs: 10_000, renewMs: 2_000 }) });
      desk.toggles.refuseInUnit = true;
      expect(statusOf(await desk.server.callTool(deskConnection(), 'add_row', { text: 'later' }))).toBe(
        'conflict',
      );
      expect(desk.rows).toEqual([]);
      desk.toggles.refuseInUnit = false;
      expect(statusOf(await desk.server.callTool(deskConnection(), 'add_row', { text: 'later' }))).toBe('ok');
      expect(statusOf(await desk.server.callTool(deskConnection(), 'add_row', { text: 'later' }))).toBe(
        'replayed',
      );
      expect(desk.rows).toEqual(['later']);
      expect(desk.audited()).toEqual(['add_row']);
    });

    it('releases the claim of a call whose unit of work failed: the retry runs once', async () => {
      const desk = guardDesk({ claim: factory({ leaseMs: 10_000, renewMs: 2_000 }) });
      desk.unitOfWork.failing = true;
      expect(statusOf(await desk.server.callTool(deskConnection(), 'add_row', { text: 'retry' }))).toBe(
        'store_unavailable',
      );
      desk.unitOfWork.failing = false;
      expect(statusOf(await desk.server.callTool(deskConnection(), 'add_row', { text: 'retry' }))).toBe('ok');
      expect(desk.rows).toEqual(['retry']);
    });
  });
}
