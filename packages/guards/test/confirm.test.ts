import { REPLAY_NOTE } from '@gatehousejs/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startBookings, structured } from './bookings.js';

type Desk = Awaited<ReturnType<typeof startBookings>>;
let desk: Desk;
afterEach(async () => desk?.served.close());

const ADA = { customer: 'Ada', email: 'ada@example.com', start: '2030-05-04T09:00:00+02:00' };
interface Preview {
  status: 'PREVIEW';
  confirm_token: string;
  confirm_summary: string;
  expires_at: { utc: string; from_now: string };
  content: { to: string; text: string };
  next: { tool: string; arguments: { confirm_token: string; confirm_summary: string } };
}

async function previewFor(d: Desk, token = 'tok_a'): Promise<Preview> {
  await d.client(token).callTool('create_booking', ADA);
  const id = d.rows.at(-1)!.id;
  return structured(
    await d.client(token).callTool('notify_customer', { booking_id: id }),
  ) as unknown as Preview;
}
const confirm = (
  d: Desk,
  p: Preview,
  overrides: Partial<Preview['next']['arguments']> = {},
  token = 'tok_a',
) => d.client(token).callTool('confirm_action', { ...p.next.arguments, ...overrides });

describe('confirmGuard (I9)', () => {
  it('only prepares on the first call: a preview with token, server-written summary and expiry; nothing is sent', async () => {
    desk = await startBookings();
    const preview = await previewFor(desk);
    expect(preview).toMatchObject({
      status: 'PREVIEW',
      confirm_summary: 'Mail a customer: mail ada@example.com about bk_1 at 2030-05-04T09:00:00+02:00',
      content: { to: 'ada@example.com', text: 'Reminder: your booking starts 2030-05-04T09:00:00+02:00.' },
      next: { tool: 'confirm_action' },
    });
    expect(preview.confirm_token).toMatch(/^gc_[A-Za-z0-9_-]{43}$/);
    expect(preview.expires_at.from_now).toBe('in 1 minute');
    expect(desk.mails).toEqual([]);
    expect(desk.pending.size).toBe(1);
    const stored = await desk.pending.findByTokenHash(
      (await import('@gatehousejs/core')).sha256Hex(preview.confirm_token),
    );
    expect(JSON.stringify(stored)).not.toContain(preview.confirm_token);
  });

  it('sends exactly once on confirm, audits one row linking the pending action, and replays a re-sent confirm', async () => {
    desk = await startBookings();
    const preview = await previewFor(desk);
    const done = await confirm(desk, preview);
    expect(structured(done)).toMatchObject({
      status: 'ok',
      result: { action: 'notify_customer', result: { sent_to: 'ada@example.com' } },
    });
    expect(desk.mails).toEqual([
      { to: 'ada@example.com', text: 'Reminder: your booking starts 2030-05-04T09:00:00+02:00.' },
    ]);
    const resent = await confirm(desk, preview);
    expect(structured(resent)).toEqual({ ...structured(done), replayed: true, replay_note: REPLAY_NOTE });
    expect(desk.mails).toHaveLength(1);
    const rows = desk.audit.rows.filter((r) => r.action === 'notify_customer');
    expect(rows).toEqual([
      expect.objectContaining({ outcome: 'ok', note: expect.stringMatching(/^confirmed pa_/) }),
    ]);
  });

  it('refuses wrong-summary, foreign, unknown, reused, rejected and expired tokens, killing each as the I9 table says, sending nothing', async () => {
    desk = await startBookings();
    const wrong = await previewFor(desk);
    expect(structured(await confirm(desk, wrong, { confirm_summary: 'Mail everyone' })).error?.code).toBe(
      'confirm_summary_mismatch',
    );
    expect(structured(await confirm(desk, wrong)).error?.code).toBe('confirm_used');
    const foreign = structured(
      await desk.client().callTool('notify_customer', { booking_id: 'bk_1' }),
    ) as unknown as Preview;
    expect(structured(await confirm(desk, foreign, {}, 'tok_b')).error?.code).toBe('confirm_not_found');
    expect(structured(await confirm(desk, foreign)).error?.code).toBe('confirm_used');
    expect(structured(await confirm(desk, foreign, { confirm_token: 'gc_forged' })).error?.code).toBe(
      'confirm_not_found',
    );
    expect(desk.mails).toEqual([]);

    const preview = structured(
      await desk.client().callTool('notify_customer', { booking_id: 'bk_1' }),
    ) as unknown as Preview;
    expect(structured(await confirm(desk, preview)).status).toBe('ok');
    const reused = await desk
      .client()
      .callTool('confirm_action', { ...preview.next.arguments, idempotency_key: 'another-try-1' });
    expect(structured(reused).error?.code).toBe('confirm_used');
    expect(desk.mails).toHaveLength(1);

    const second = structured(
      await desk.client().callTool('notify_customer', { booking_id: 'bk_1' }),
    ) as unknown as Preview;
    const rejected = await desk
      .client()
      .callTool('reject_action', { confirm_token: second.confirm_token, reason: 'wrong day' });
    expect(structured(rejected).status).toBe('ok');
    expect(structured(await confirm(desk, second)).error?.code).toBe('confirm_rejected');
    expect(desk.mails).toHaveLength(1);

    await desk.served.close();
    let now = Date.now();
    desk = await startBookings({ clock: () => new Date(now) });
    const old = await previewFor(desk);
    now += 60_001;
    expect(structured(await confirm(desk, old)).error?.code).toBe('confirm_expired');
    expect(structured(await confirm(desk, old)).error?.code).toBe('confirm_used');
    expect(desk.mails).toEqual([]);
  });

  it('kills the old token and returns a new preview when the content changed between the steps', async () => {
    desk = await startBookings();
    const preview = await previewFor(desk);
    desk.rows[0]!.start = '2030-05-04T11:00:00+02:00';
    const changed = structured(await confirm(desk, preview)).error as {
      code: string;
      details: { preview: Preview };
    };
    expect(changed.code).toBe('changed_since_preview');
    expect(changed.details.preview.content.text).toContain('11:00');
    expect(desk.mails).toEqual([]);
    expect(structured(await confirm(desk, preview)).error?.code).toBe('confirm_used');
    const renewed = changed.details.preview;
    expect(structured(await confirm(desk, renewed)).status).toBe('ok');
    expect(desk.mails.map((m) => m.text)).toEqual([
      'Reminder: your booking starts 2030-05-04T11:00:00+02:00.',
    ]);
  });

  it('refuses when rights are removed or the tenant switch is turned off between the steps, and the token stays dead', async () => {
    desk = await startBookings();
    const preview = await previewFor(desk);
    desk.rights.get('tok_a')!.delete('customers.notify');
    expect(structured(await confirm(desk, preview)).error?.code).toBe('missing_right');
    desk.rights.get('tok_a')!.add('customers.notify');
    expect(structured(await confirm(desk, preview)).error?.code).toBe('confirm_used');
    const again = structured(
      await desk.client().callTool('notify_customer', { booking_id: 'bk_1' }),
    ) as unknown as Preview;
    await desk.switches.setTenantAccess('t1', false, { actorId: 'admin', channel: 'admin' });
    expect(structured(await confirm(desk, again)).error?.code).toBe('tenant_disabled');
    await desk.switches.setTenantAccess('t1', true, { actorId: 'admin', channel: 'admin' });
    expect(structured(await confirm(desk, again)).error?.code).toBe('confirm_used');
    expect(desk.mails).toEqual([]);
    expect(desk.audit.rows.filter((r) => r.action === 'notify_customer')).toEqual([]);
  });

  it('sends once for 500 parallel confirmations of one token', async () => {
    desk = await startBookings();
    const preview = await previewFor(desk);
    const replies = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        desk
          .client()
          .callTool('confirm_action', { ...preview.next.arguments, idempotency_key: `parallel-${i}` }),
      ),
    );
    expect(desk.mails).toHaveLength(1);
    expect(replies.filter((r) => structured(r).status === 'ok')).toHaveLength(1);
    const codes = new Set(replies.map((r) => structured(r).error?.code).filter(Boolean));
    expect([...codes].every((c) => c === 'confirm_used' || c === 'confirm_locked')).toBe(true);
  });
});
