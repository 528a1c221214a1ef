import { RawHttpClient } from '@gatehousejs/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHost, type TicketsHost } from './host.js';

type Structured = Record<string, unknown> & { error?: { code: string } };

let host: TicketsHost;
let client: RawHttpClient;

const call = async (name: string, args: object, id?: number) => {
  const reply = await client.callTool(name, args, id === undefined ? {} : { id });
  return reply.result?.structuredContent as Structured;
};

beforeEach(async () => {
  host = await startHost();
  const token = await host.mint(host.home);
  client = new RawHttpClient({
    url: host.url,
    era: '2026-07-28',
    headers: { authorization: `Bearer ${token}` },
  });
});

afterEach(() => host.close());

describe('create_ticket', () => {
  it('stores one ticket when the same call arrives twice, and answers the second as a replay', async () => {
    const args = { title: 'Door sticks', body: 'The back door.', requester_email: 'sam@example.com' };
    const first = await call('create_ticket', args, 1);
    const again = await call('create_ticket', args, 2);
    expect(first).toMatchObject({ status: 'ok' });
    expect(again).toMatchObject({ replayed: true });
    const stored = (await host.app.database.all.tickets()).filter((t) => t.title === 'Door sticks');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ workspaceId: 'ws_acme', createdBy: 'p_ada' });
  });
});

describe('email_requester', () => {
  it('sends nothing on the first call, and one mail once confirm_action confirms it', async () => {
    const preview = await call('email_requester', { ticket_id: 'tk_acme_boiler', message: 'Monday at 9.' });
    expect(preview).toMatchObject({ status: 'PREVIEW' });
    expect(await host.app.database.all.mails()).toEqual([]);
    const confirmation = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
    expect(await call('confirm_action', confirmation)).toMatchObject({ status: 'ok' });
    const mails = await host.app.database.all.mails();
    expect(mails).toMatchObject([
      { ticketId: 'tk_acme_boiler', to: 'ada.customer@example.com', text: 'Monday at 9.' },
    ]);
  });
});
// #if console

describe('delete_ticket', () => {
  it('waits for a person: no model call deletes, the approval does', async () => {
    const preview = await call('delete_ticket', { ticket_id: 'tk_acme_invoice' });
    expect(preview).toMatchObject({ status: 'PREVIEW', approval: 'person' });
    const confirmation = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
    expect((await call('confirm_action', confirmation)).error?.code).toBe('approval_pending');
    const ids = async () => (await host.app.database.all.tickets()).map((t) => t.id);
    expect(await ids()).toContain('tk_acme_invoice');
    expect(await host.approveAsPerson?.(String(preview.pending_action_id))).toBe(true);
    expect(await ids()).not.toContain('tk_acme_invoice');
    expect(await call('confirm_action', confirmation)).toMatchObject({ replayed: true });
  });
});
// #endif
