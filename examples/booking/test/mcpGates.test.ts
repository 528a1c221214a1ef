/**
 * The gates of the booking MCP server, driven by a raw JSON-RPC client that
 * ignores every hint: credentials, kill switches, live rights, visibility,
 * tenancy, strict arguments, replay, batches and time (I3–I7, I10, I13, I14, I20).
 */
import { REPLAY_NOTE } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../src/services/apiAccess.js';
import { codeOf, rawClient, structured } from './fixtures/raw.js';
import { berlin, testApp } from './fixtures/testApp.js';

const createArgs = (days = 15) => ({
  customer_id: 'cu_alan',
  starts_at: berlin(days, '08:00'),
  duration_minutes: 30,
  price: { minor_units: 4500, currency: 'EUR' },
});

describe('the MCP endpoint', () => {
  it('answers an API token, a session cookie, no credential and a foreign Origin with 401 or 403', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const olivia = await t.app.people.byId('p_olivia');
    if (!olivia) throw new Error('seed missing');
    const apiToken = (await t.app.apiAccess.createToken(olivia, 'script')).token;
    const session = (await t.app.apiAccess.openSession('p_olivia')).token;
    expect((await rawClient(mcpUrl, apiToken).listTools()).status).toBe(401);
    expect(
      (await rawClient(mcpUrl, undefined, { cookie: `${SESSION_COOKIE}=${session}` }).listTools()).status,
    ).toBe(401);
    expect((await rawClient(mcpUrl, undefined).listTools()).status).toBe(401);
    const mcp = await t.mint();
    expect((await rawClient(mcpUrl, mcp, { origin: 'https://evil.example' }).listTools()).status).toBe(403);
    expect((await rawClient(mcpUrl, mcp).listTools()).status).toBe(200);
  });

  it('answers 503 with Retry-After while the global kill switch is on, and writes nothing', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    const before = await t.count('bookings');
    await t.app.switches.setGlobal(true, { actorId: 'ops', channel: 'cli' });
    const refused = await client.callTool('create_booking', createArgs());
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(await t.count('bookings')).toBe(before);
    await t.app.switches.setGlobal(false, { actorId: 'ops', channel: 'cli' });
    expect(structured(await client.callTool('create_booking', createArgs())).status).toBe('ok');
    expect(await t.count('gatehouse_audit', "action = 'switch.set' AND channel = 'cli'")).toBe(2);
  });

  it('refuses every call of a workspace whose agent access is off, while other workspaces go on', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const acme = rawClient(mcpUrl, await t.mint());
    const globex = rawClient(mcpUrl, await t.mint({ workspaceId: 'ws_globex', personId: 'p_gina' }));
    await t.app.switches.setTenantAccess('ws_acme', false, { actorId: 'p_olivia', channel: 'admin' });
    expect(codeOf(await acme.callTool('find_bookings', {}))).toBe('tenant_disabled');
    expect(codeOf(await acme.callTool('create_booking', createArgs()))).toBe('tenant_disabled');
    expect(structured(await globex.callTool('find_bookings', {})).status).toBe('ok');
  });

  it('cuts rights live: a removed role refuses the next write, a deactivated creator gets 401', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint({ personId: 'p_dan' }));
    expect(structured(await client.callTool('create_booking', createArgs())).status).toBe('ok');
    const dan = await t.app.people.byId('p_dan');
    if (!dan) throw new Error('seed missing');
    await t.app.people.setRole(dan, 'viewer', { actorId: 'ops', channel: 'cli' });
    const before = await t.count('bookings');
    expect(codeOf(await client.callTool('create_booking', createArgs(16)))).toBe('missing_right');
    expect(await t.count('bookings')).toBe(before);
    await t.app.people.deactivate(dan, { actorId: 'ops', channel: 'cli' });
    expect((await client.callTool('find_bookings', {})).status).toBe(401);
  });

  it('hides tools outside the compact toolset and names the reason when one is called anyway', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint({ toolset: 'compact' }));
    const tools = (((await client.listTools()).result?.tools ?? []) as { name: string }[]).map(
      (tool) => tool.name,
    );
    expect(tools.sort()).toEqual(
      [
        'create_booking',
        'find_bookings',
        'find_customers',
        'get_booking',
        'get_customer',
        'list_recent_changes',
        'update_booking',
      ].sort(),
    );
    const hidden = structured(await client.callTool('delete_booking', { booking_id: 'bk_alan_check' }));
    expect(hidden.error?.code).toBe('tool_hidden');
    expect(hidden.error?.message).toContain('compact');
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
  });

  it('answers ids of another workspace with not_found and changes nothing', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    const snapshot = async () =>
      JSON.stringify(await t.rows("SELECT * FROM bookings WHERE id = 'bk_linus_leak'"));
    const before = await snapshot();
    const calls: [string, Record<string, unknown>][] = [
      ['get_booking', { id: 'bk_linus_leak' }],
      ['get_customer', { id: 'cu_linus' }],
      ['update_booking', { id: 'bk_linus_leak', version: '0123456789abcdef', duration_minutes: 30 }],
      ['reschedule_bookings', { ids: ['bk_linus_leak'], shift_minutes: 60 }],
      ['notify_customer', { booking_id: 'bk_linus_leak' }],
      ['delete_booking', { booking_id: 'bk_linus_leak' }],
      ['create_booking', { ...createArgs(), customer_id: 'cu_linus' }],
    ];
    for (const [tool, args] of calls) {
      const reply = structured(await client.callTool(tool, args));
      expect(reply.error?.code, tool).toBe('not_found');
      expect(JSON.stringify(reply.error)).toContain('find_');
    }
    expect(await snapshot()).toBe(before);
    expect(await t.count('gatehouse_pending_actions')).toBe(0);
  });

  it('refuses a workspace_id argument and any other unknown field with the allowed list', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    const before = await t.count('bookings');
    const reply = structured(
      await client.callTool('create_booking', { ...createArgs(), workspace_id: 'ws_globex' }),
    );
    expect(reply.error?.code).toBe('unknown_arguments');
    expect(reply.error?.details.allowed).toContain('customer_id');
    expect(await t.count('bookings')).toBe(before);
  });

  it('names the path of an unknown key and the keys allowed there, nested or at the top level with every guard-owned argument', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    const before = await t.count('bookings');
    const nested = structured(
      await client.callTool('create_booking', {
        ...createArgs(),
        starts_at: { ...berlin(15, '08:00'), surprise: true },
      }),
    );
    expect(nested.error).toMatchObject({
      code: 'unknown_arguments',
      details: { unknown: ['starts_at.surprise'], path: 'starts_at.surprise', allowed: ['local', 'zone'] },
    });
    const top = structured(await client.callTool('create_booking', { ...createArgs(), surprise: true }));
    expect(top.error).toMatchObject({
      code: 'unknown_arguments',
      details: {
        unknown: ['surprise'],
        path: 'surprise',
        allowed: [
          'customer_id',
          'technician_id',
          'starts_at',
          'duration_minutes',
          'price',
          'idempotency_key',
          'separate',
          'reason',
        ],
      },
    });
    const inBatch = structured(
      await client.callTool('reschedule_bookings', {
        filter: { from: berlin(1, '08:00'), to: { ...berlin(2, '08:00'), offset: '+01:00' } },
        expected_count: 1,
        shift_minutes: 30,
      }),
    );
    expect(inBatch.error?.details).toMatchObject({ path: 'filter.to.offset', allowed: ['local', 'zone'] });
    expect(await t.count('bookings')).toBe(before);
    expect(await t.count('gatehouse_audit', "action = 'create_booking'")).toBe(0);
  });

  it('runs a write once when it is re-sent with a new JSON-RPC id, answering the repeat with replayed: true', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    const first = structured(await client.callTool('create_booking', createArgs(), { id: 'first' }));
    const again = structured(await client.callTool('create_booking', createArgs(), { id: 'again' }));
    expect(again).toEqual({ ...first, replayed: true, replay_note: REPLAY_NOTE });
    expect(await t.count('bookings', 'customer_id = ?', 'cu_alan')).toBe(2);
    expect(await t.count('gatehouse_audit', "action = 'create_booking'")).toBe(1);
    expect(await t.count('gatehouse_replay', "state = 'completed'")).toBe(1);
  });

  it('lists the matches of a batch filter whose count differs from expected_count, and moves nothing', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    const starts = async () => JSON.stringify(await t.rows('SELECT id, starts_at FROM bookings ORDER BY id'));
    const before = await starts();
    const filter = {
      from: new Date().toISOString(),
      to: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    };
    const reply = structured(
      await client.callTool('reschedule_bookings', { filter, expected_count: 1, shift_minutes: 30 }),
    );
    expect(reply.error?.code).toBe('batch_count_mismatch');
    expect(((reply.error?.details.matches ?? []) as { id: string }[]).map((m) => m.id).sort()).toEqual([
      'bk_ada_boiler',
      'bk_alan_check',
      'bk_grace_service',
    ]);
    expect(await starts()).toBe(before);
    const moved = structured(
      await client.callTool('reschedule_bookings', { filter, expected_count: 3, shift_minutes: 30 }),
    );
    expect(moved.result?.bookings).toHaveLength(3);
  });

  it('refuses a local time in a DST gap and offers both offsets of one in an overlap', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    const at = (local: string) => ({ ...createArgs(), starts_at: { local, zone: 'Europe/Berlin' } });
    const gap = structured(await client.callTool('create_booking', at('2027-03-28T02:30')));
    expect(gap.error?.code).toBe('invalid_arguments');
    expect(gap.error?.message).toContain('does not exist');
    const overlap = structured(await client.callTool('create_booking', at('2027-10-31T02:30')));
    expect(overlap.error?.message).toContain('2027-10-31T02:30:00+02:00[Europe/Berlin]');
    expect(overlap.error?.message).toContain('2027-10-31T02:30:00+01:00[Europe/Berlin]');
  });

  it('limits each effect class per connection: a fourth page is refused while reads go on', async () => {
    await using t = await testApp();
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    const page = { technician_id: 'te_kim', message: 'Boiler at Ada’s leaks.' };
    for (let i = 0; i < 3; i++)
      expect(structured(await client.callTool('page_technician', page)).status).toBe('PREVIEW');
    expect(codeOf(await client.callTool('page_technician', page))).toBe('rate_limited');
    expect(structured(await client.callTool('find_technicians', { on_call: true })).status).toBe('ok');
  });
});
