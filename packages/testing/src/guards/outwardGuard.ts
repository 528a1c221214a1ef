import type { CallResult, JsonObject, Lease, OutwardGuard } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { concurrently } from '../stores/fixture.js';
import { deskConnection, guardDesk } from './desk.js';

/** Builds the outward guard under test with the preview life and the lease a case needs. */
export type OutwardGuardFactory = (options: Lease & { readonly ttlMs: number }) => OutwardGuard;

const structured = (result: CallResult) =>
  result.structuredContent as JsonObject & { status: string; error?: { code: string; details?: JsonObject } };
const codeOf = (result: CallResult) => structured(result).error?.code ?? structured(result).status;

/**
 * Registers the I9 table of the two-step confirm, proved through a server
 * with the outward guard under test: core's stage runner decides what each
 * refusal does to a token, whatever guard is plugged in. A preview sends
 * nothing. Dead after a wrong summary, an expired token, another
 * connection's use, a right lost, a unit guard's refusal, the service's
 * refusal (a later use answers `confirm_used` and nothing is ever sent);
 * superseded, with a renewed preview, when the content changed; kept
 * through a rate refusal and a store outage (the retry sends once); used
 * once executed (an identical re-send is replayed, another use is
 * `confirm_used`); and 200 concurrent confirmations send once.
 *
 * @example
 * describeOutwardGuard('confirmGuard', (o) => confirmGuard({ store: new MemoryPendingActionStore(), ...o }));
 */
export function describeOutwardGuard(name: string, factory: OutwardGuardFactory): void {
  const TTL_MS = 600_000;
  const desk = (rateLimited = false) => {
    const clock = { now: Date.parse('2030-01-01T09:00:00Z') };
    const built = guardDesk({
      outward: factory({ ttlMs: TTL_MS, leaseMs: 10_000, renewMs: 2_000 }),
      clock: () => new Date(clock.now),
      ...(rateLimited ? { rate: { limits: { read: { capacity: 1, refillPerSecond: 1 / 60 } } } } : {}),
    });
    const call = (tool: string, args: JsonObject, connection = deskConnection()) =>
      built.server.callTool(connection, tool, args);
    const preview = async () => {
      const previewed = structured(await call('send_message', {}));
      expect(previewed.status).toBe('PREVIEW');
      return {
        confirm_token: previewed.confirm_token as string,
        confirm_summary: previewed.confirm_summary as string,
      };
    };
    const confirm = (args: JsonObject, connection = deskConnection()) =>
      call('confirm_action', args, connection);
    /** The token is dead: a later use with the right summary answers confirm_used and sends nothing. */
    const expectDead = async (args: JsonObject) => {
      expect(codeOf(await confirm(args))).toBe('confirm_used');
      expect(built.sent).toEqual([]);
    };
    return { ...built, clock, call, preview, confirm, expectDead };
  };

  describe(name, () => {
    it('sends nothing on a preview', async () => {
      const d = desk();
      await d.preview();
      expect(d.sent).toEqual([]);
    });

    it('kills the token after a wrong summary', async () => {
      const d = desk();
      const args = await d.preview();
      expect(codeOf(await d.confirm({ ...args, confirm_summary: 'Send everything' }))).toBe(
        'confirm_summary_mismatch',
      );
      await d.expectDead(args);
    });

    it('kills the token once it expired', async () => {
      const d = desk();
      const args = await d.preview();
      d.clock.now += TTL_MS + 1;
      expect(codeOf(await d.confirm(args))).toBe('confirm_expired');
      d.clock.now -= TTL_MS + 1;
      await d.expectDead(args);
    });

    it('kills the token another connection sent, and tells that connection nothing of it', async () => {
      const d = desk();
      const args = await d.preview();
      const stranger = deskConnection({ connectionId: 'c2' });
      expect(codeOf(await d.confirm(args, stranger))).toBe('confirm_not_found');
      await d.expectDead(args);
    });

    it('kills the token when the connection lost the tool’s right', async () => {
      const d = desk();
      const args = await d.preview();
      const demoted = deskConnection({ rights: new Set(['rows.write'] as const) });
      expect(codeOf(await d.confirm(args, demoted))).toBe('missing_right');
      await d.expectDead(args);
    });

    it('kills the token a unit guard refused at confirmation', async () => {
      const d = desk();
      const args = await d.preview();
      d.toggles.refuseInUnit = true;
      expect(codeOf(await d.confirm(args))).toBe('conflict');
      d.toggles.refuseInUnit = false;
      await d.expectDead(args);
    });

    it('kills the token the service refused', async () => {
      const d = desk();
      const args = await d.preview();
      d.toggles.refuseInRun = true;
      expect(codeOf(await d.confirm(args))).toBe('conflict');
      d.toggles.refuseInRun = false;
      await d.expectDead(args);
    });

    it('supersedes the token when the content changed, with a renewed preview that sends once', async () => {
      const d = desk();
      const args = await d.preview();
      d.toggles.message = 'Hello again';
      const changed = structured(await d.confirm(args));
      expect(changed.error?.code).toBe('changed_since_preview');
      await d.expectDead(args);
      const details = changed.error?.details as {
        preview?: { confirm_token: string; confirm_summary: string };
      };
      const renewed = details?.preview ?? { confirm_token: '', confirm_summary: '' };
      const sent = await d.confirm({
        confirm_token: renewed.confirm_token,
        confirm_summary: renewed.confirm_summary,
      });
      expect(codeOf(sent)).toBe('ok');
      expect(d.sent).toEqual(['Hello again']);
    });

    it('keeps the token through a rate refusal: the retry sends once', async () => {
      const d = desk(true);
      const args = await d.preview();
      await d.call('confirm_action', { confirm_token: 'gc_unknown', confirm_summary: 'x' }); // takes the read token
      expect(codeOf(await d.confirm(args))).toBe('rate_limited');
      d.clock.now += 120_000;
      expect(codeOf(await d.confirm(args))).toBe('ok');
      expect(d.sent).toEqual(['Hello']);
    });

    it('keeps the token through a store outage: the retry sends once', async () => {
      const d = desk();
      const args = await d.preview();
      d.unitOfWork.failing = true;
      expect(codeOf(await d.confirm(args))).toBe('store_unavailable');
      d.unitOfWork.failing = false;
      expect(codeOf(await d.confirm(args))).toBe('ok');
      expect(d.sent).toEqual(['Hello']);
    });

    it('uses the token once: an identical re-send is replayed, another use answers confirm_used', async () => {
      const d = desk();
      const args = await d.preview();
      expect(codeOf(await d.confirm(args))).toBe('ok');
      expect(structured(await d.confirm(args))).toMatchObject({ replayed: true });
      expect(codeOf(await d.confirm({ ...args, idempotency_key: 'another-use' }))).toBe('confirm_used');
      expect(d.sent).toEqual(['Hello']);
    });

    it('sends once for 200 concurrent confirmations of one token', async () => {
      const d = desk();
      const args = await d.preview();
      const answers = await concurrently(200, (i) =>
        d.confirm({ ...args, idempotency_key: `key-${i}-of-200` }),
      );
      expect(answers.filter((a) => codeOf(a) === 'ok')).toHaveLength(1);
      expect(d.sent).toEqual(['Hello']);
    });
  });
}
