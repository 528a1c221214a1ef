/**
 * Outward tools take two steps (I9): notify, wake, alert and delete only
 * prepare; confirm_action executes once, for the connection that prepared,
 * with the exact summary, and only while what would go out is unchanged.
 * delete_booking and page_technician need a person: only their approval on
 * the product's page executes, and confirm_action tells the model the outcome.
 */
import { REPLAY_NOTE } from '@gatehousejs/core';
import type { RawHttpClient } from '@gatehousejs/testing';
import { describe, expect, it } from 'vitest';
import { approveAs, pendingIdOf, rejectAs } from './fixtures/approvals.js';
import { codeOf, rawClient, structured } from './fixtures/raw.js';
import { type TestApp, testApp } from './fixtures/testApp.js';

const clientOf = async (t: TestApp) => rawClient((await t.serve()).mcpUrl, await t.mint());

const confirm = (
  client: RawHttpClient,
  preview: Record<string, unknown>,
  summary = preview.confirm_summary,
) => client.callTool('confirm_action', { confirm_token: preview.confirm_token, confirm_summary: summary });

describe('outward tools', () => {
  it('pages a technician only after a person approves, once; the model learns the result and can never page it itself', async () => {
    await using t = await testApp();
    const client = await clientOf(t);
    const preview = structured(
      await client.callTool('page_technician', {
        technician_id: 'te_kim',
        booking_id: 'bk_ada_boiler',
        message: 'Pressure alarm at Ada’s.',
      }),
    );
    expect(preview).toMatchObject({ status: 'PREVIEW', approval: 'person' });
    const id = pendingIdOf(preview);
    expect(preview.approval_url).toBe(t.app.publicUrl.of(`/approvals/${id}`));
    const pending = await confirm(client, preview);
    expect(codeOf(pending)).toBe('approval_pending');
    expect(structured(pending).error?.details).toMatchObject({ pending_action_id: id });
    expect(await t.count('outbound_pages')).toBe(0);

    expect(await approveAs(t, id)).toMatchObject({ outcome: 'executed' });
    const learned = structured(await confirm(client, preview));
    expect(learned).toMatchObject({ status: 'ok', replayed: true, replay_note: REPLAY_NOTE });
    expect(learned.result).toMatchObject({ action: 'page_technician', pending_action_id: id });
    expect(structured(await confirm(client, preview))).toEqual(learned);
    expect(await approveAs(t, id)).toMatchObject({ outcome: 'refused', code: 'closed' });
    expect(
      await t.count(
        'outbound_pages',
        "technician_id = 'te_kim' AND booking_id = 'bk_ada_boiler' AND to_phone IS NOT NULL",
      ),
    ).toBe(1);
    const audit = await t.rows<{ connection_id: string; note: string }>(
      "SELECT connection_id, note FROM gatehouse_audit WHERE action = 'page_technician'",
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]!.note).toBe(`approved ${id} by p_olivia`);
  });

  it('previews a mute with the rules it covers, and mutes them only when confirmed', async () => {
    await using t = await testApp();
    const client = await clientOf(t);
    const until = new Date(Date.now() + 3 * 3_600_000).toISOString();
    const preview = structured(
      await client.callTool('mute_alerts', { until, reason: 'Planned maintenance' }),
    );
    expect((preview.content as { rules: { id: string }[] }).rules.map((r) => r.id)).toEqual([
      'ar_pressure',
      'ar_missed',
    ]);
    expect(await t.count('alert_rules', 'muted_until IS NOT NULL')).toBe(0);
    expect(structured(await confirm(client, preview)).status).toBe('ok');
    expect(await t.count('alert_rules', "muted_until IS NOT NULL AND workspace_id = 'ws_acme'")).toBe(2);
    expect(await t.count('alert_rules', "muted_until IS NOT NULL AND workspace_id = 'ws_globex'")).toBe(0);
  });

  it('lists what a delete would remove, deletes nothing on preview or rejection, and deletes once a person approves', async () => {
    await using t = await testApp();
    const client = await clientOf(t);
    const first = structured(await client.callTool('delete_booking', { booking_id: 'bk_alan_check' }));
    expect(JSON.stringify(first.content)).toContain('bk_alan_check');
    expect(await rejectAs(t, pendingIdOf(first))).toMatchObject({ outcome: 'rejected' });
    expect(codeOf(await confirm(client, first))).toBe('approval_rejected');
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
    const second = structured(await client.callTool('delete_booking', { booking_id: 'bk_alan_check' }));
    expect(codeOf(await confirm(client, second))).toBe('approval_pending');
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
    expect(await approveAs(t, pendingIdOf(second))).toMatchObject({ outcome: 'executed' });
    expect(structured(await confirm(client, second)).result).toMatchObject({ action: 'delete_booking' });
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(0);
  });

  it('refuses a wrong summary and a token of another connection, sending nothing', async () => {
    await using t = await testApp();
    const client = await clientOf(t);
    const preview = structured(await client.callTool('notify_customer', { booking_id: 'bk_ada_boiler' }));
    expect(codeOf(await confirm(client, preview, 'mail everyone'))).toBe('confirm_summary_mismatch');
    const other = rawClient(client.url, await t.mint());
    expect(codeOf(await confirm(other, preview))).toBe('confirm_not_found');
    expect(await t.count('outbound_messages')).toBe(0);
  });

  it('answers changed_since_preview, sending nothing, when the booking changed between the two steps', async () => {
    await using t = await testApp();
    const client = await clientOf(t);
    const preview = structured(await client.callTool('notify_customer', { booking_id: 'bk_ada_boiler' }));
    await t.exec("UPDATE bookings SET duration_minutes = 120 WHERE id = 'bk_ada_boiler'");
    const reply = structured(await confirm(client, preview));
    expect(reply.error?.code).toBe('changed_since_preview');
    expect(JSON.stringify(reply.error?.details)).toContain('120 minutes');
    expect(await t.count('outbound_messages')).toBe(0);
  });

  it('refuses an expired confirm token', async () => {
    await using t = await testApp();
    const client = await clientOf(t);
    const preview = structured(await client.callTool('notify_customer', { booking_id: 'bk_ada_boiler' }));
    t.advance(11 * 60_000);
    expect(codeOf(await confirm(client, preview))).toBe('confirm_expired');
    expect(await t.count('outbound_messages')).toBe(0);
  });
});
