/**
 * A refused confirmation stays refused (I9): every row of the table in
 * INVARIANTS.md against the booking product. A refusal kills the token on
 * its own, so no later confirmation with it sends anything, whatever
 * changes in between; only an executed token answers a re-send with its
 * first result.
 */
import type { RawHttpClient } from '@gatehousejs/testing';
import { describe, expect, it } from 'vitest';
import { approveAs, pendingIdOf, viewAs } from './fixtures/approvals.js';
import { codeOf, rawClient, structured } from './fixtures/raw.js';
import { type TestApp, testApp } from './fixtures/testApp.js';

type Preview = Record<string, unknown>;

const confirm = (client: RawHttpClient, preview: Preview, summary = preview.confirm_summary, key?: string) =>
  client.callTool('confirm_action', {
    confirm_token: preview.confirm_token,
    confirm_summary: summary,
    ...(key ? { idempotency_key: key } : {}),
  });

const notify = async (client: RawHttpClient) =>
  structured(await client.callTool('notify_customer', { booking_id: 'bk_ada_boiler' })) as Preview;

const page = async (client: RawHttpClient) =>
  structured(
    await client.callTool('page_technician', {
      technician_id: 'te_kim',
      booking_id: 'bk_ada_boiler',
      message: 'Pressure alarm at Ada’s.',
    }),
  ) as Preview;

const setup = async (t: TestApp, personId?: string) => {
  const { mcpUrl } = await t.serve();
  return rawClient(mcpUrl, await t.mint(personId ? { personId } : {}));
};

describe('a refused confirmation kills its token (I9)', () => {
  it('a wrong summary kills the token: the right summary afterwards sends nothing', async () => {
    await using t = await testApp();
    const client = await setup(t);
    const preview = await notify(client);
    expect(codeOf(await confirm(client, preview, 'Notify: something else'))).toBe('confirm_summary_mismatch');
    expect(codeOf(await confirm(client, preview))).toBe('confirm_used');
    expect(codeOf(await confirm(client, preview, preview.confirm_summary, 'deliberate-1'))).toBe(
      'confirm_used',
    );
    expect(await t.count('outbound_messages')).toBe(0);
    expect(await t.count('gatehouse_pending_actions', "status = 'failed'")).toBe(1);
  });

  it('content changed: the renewed preview confirms once; the old token stays dead after the change is undone', async () => {
    await using t = await testApp();
    const client = await setup(t);
    const preview = await notify(client);
    await t.exec("UPDATE bookings SET duration_minutes = 120 WHERE id = 'bk_ada_boiler'");
    const changed = structured(await confirm(client, preview));
    expect(changed.error?.code).toBe('changed_since_preview');
    const renewed = (changed.error!.details as { preview: Preview }).preview;
    await t.exec("UPDATE bookings SET duration_minutes = 90 WHERE id = 'bk_ada_boiler'");
    await t.exec("UPDATE bookings SET duration_minutes = 120 WHERE id = 'bk_ada_boiler'");
    expect(structured(await confirm(client, renewed)).status).toBe('ok');
    expect(await t.count('outbound_messages')).toBe(1);
    expect(codeOf(await confirm(client, preview))).toBe('confirm_used');
    expect(await t.count('outbound_messages')).toBe(1);
    expect(await t.count('gatehouse_pending_actions', "status = 'superseded'")).toBe(1);
  });

  it('the old token stays dead when the object is changed back to what the preview showed', async () => {
    await using t = await testApp();
    const client = await setup(t);
    const preview = await notify(client);
    const [before] = await t.rows<{ duration_minutes: number }>(
      "SELECT duration_minutes FROM bookings WHERE id = 'bk_ada_boiler'",
    );
    await t.exec("UPDATE bookings SET duration_minutes = 120 WHERE id = 'bk_ada_boiler'");
    expect(codeOf(await confirm(client, preview))).toBe('changed_since_preview');
    await t.exec(
      'UPDATE bookings SET duration_minutes = ? WHERE id = ?',
      before?.duration_minutes,
      'bk_ada_boiler',
    );
    expect(codeOf(await confirm(client, preview))).toBe('confirm_used');
    expect(await t.count('outbound_messages')).toBe(0);
  });

  it('a confirmation refused for a lost right never sends, even once the right is back', async () => {
    await using t = await testApp();
    const client = await setup(t, 'p_dan');
    const preview = await notify(client);
    const dan = await t.app.people.byId('p_dan');
    if (!dan) throw new Error('seed missing');
    await t.app.people.setRole(dan, 'viewer', { actorId: 'ops', channel: 'cli' });
    expect(codeOf(await confirm(client, preview))).toBe('missing_right');
    await t.app.people.setRole({ ...dan, role: 'viewer' }, 'dispatcher', { actorId: 'ops', channel: 'cli' });
    expect(codeOf(await confirm(client, preview))).toBe('confirm_used');
    expect(await t.count('outbound_messages')).toBe(0);
  });

  it('a confirmation refused by the workspace switch never sends, even once access is back', async () => {
    await using t = await testApp();
    const client = await setup(t);
    const preview = await notify(client);
    const by = { actorId: 'p_olivia', channel: 'admin' };
    await t.app.switches.setTenantAccess('ws_acme', false, by);
    expect(codeOf(await confirm(client, preview))).toBe('tenant_disabled');
    await t.app.switches.setTenantAccess('ws_acme', true, by);
    expect(codeOf(await confirm(client, preview))).toBe('confirm_used');
    expect(await t.count('outbound_messages')).toBe(0);
  });

  it('an approval refused by the service (technician off call) never sends once they are back on call', async () => {
    await using t = await testApp();
    const client = await setup(t);
    const preview = await page(client);
    expect(preview.status).toBe('PREVIEW');
    const id = pendingIdOf(preview);
    const shown = await viewAs(t, id);
    await t.exec("UPDATE technicians SET on_call = 0 WHERE id = 'te_kim'");
    const approvals = t.app.mcp.approvals!;
    const approver = (await t.app.approverFor('ws_acme', 'p_olivia'))!;
    expect(await approvals.approve(id, approver, { contentHash: shown!.contentHash! })).toMatchObject({
      outcome: 'refused',
      code: 'invalid_arguments',
    });
    await t.exec("UPDATE technicians SET on_call = 1 WHERE id = 'te_kim'");
    expect(await approveAs(t, id)).toMatchObject({ outcome: 'refused', code: 'closed' });
    expect(codeOf(await confirm(client, preview))).toBe('confirm_used');
    expect(await t.count('outbound_pages')).toBe(0);
  });

  it('an expired token is dead: it answers confirm_used after the first refusal', async () => {
    await using t = await testApp();
    const client = await setup(t);
    const preview = await notify(client);
    t.advance(11 * 60_000);
    expect(codeOf(await confirm(client, preview))).toBe('confirm_expired');
    expect(codeOf(await confirm(client, preview, preview.confirm_summary, 'another-try'))).toBe(
      'confirm_used',
    );
    expect(await t.count('outbound_messages')).toBe(0);
  });

  it('a token tried by another connection dies for its own connection too', async () => {
    await using t = await testApp();
    const client = await setup(t);
    const preview = await notify(client);
    const other = rawClient(client.url, await t.mint());
    expect(codeOf(await confirm(other, preview))).toBe('confirm_not_found');
    expect(codeOf(await confirm(client, preview))).toBe('confirm_used');
    expect(await t.count('outbound_messages')).toBe(0);
  });

  it('an executed token answers an identical re-send with its first result and anything else with confirm_used', async () => {
    await using t = await testApp();
    const client = await setup(t);
    const preview = await notify(client);
    const sent = structured(await confirm(client, preview));
    expect(sent.status).toBe('ok');
    expect(structured(await confirm(client, preview)).replayed).toBe(true);
    expect(codeOf(await confirm(client, preview, preview.confirm_summary, 'on-purpose'))).toBe(
      'confirm_used',
    );
    expect(await t.count('outbound_messages')).toBe(1);
    expect(await t.count('gatehouse_audit', "action = 'notify_customer' AND outcome = 'ok'")).toBe(1);
  });
});
