import { REPLAY_NOTE } from '@gatehousejs/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startBookings, structured } from './bookings.js';

type Desk = Awaited<ReturnType<typeof startBookings>>;
let desk: Desk;
afterEach(async () => desk?.served.close());

const ADA = { customer: 'Ada', email: 'ada@example.com', start: '2030-05-04T09:00:00+02:00' };
const writes = (d: Desk) => d.audit.rows.filter((r) => r.channel === 'mcp');

describe('replayGuard (I10)', () => {
  it('answers the same call with a new JSON-RPC id from the first result: one row, replayed: true', async () => {
    desk = await startBookings();
    const first = await desk.client().callTool('create_booking', ADA, { id: 1 });
    const second = await desk.client().callTool('create_booking', ADA, { id: 2 });
    expect(structured(first)).toEqual({
      status: 'ok',
      result: { booking: expect.objectContaining({ id: 'bk_1' }) },
    });
    expect(structured(second)).toEqual({ ...structured(first), replayed: true, replay_note: REPLAY_NOTE });
    expect(desk.rows).toHaveLength(1);
    expect(desk.runs).toEqual(['create_booking']);
    expect(writes(desk)).toHaveLength(1);
  });

  it('runs exactly once for 200 parallel identical calls', async () => {
    desk = await startBookings({ slowCreateMs: 50 });
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => desk.client().callTool('create_booking', ADA, { id: i + 1 })),
    );
    expect(desk.rows).toHaveLength(1);
    expect(desk.runs).toEqual(['create_booking']);
    expect(replies.map((r) => structured(r).status)).toEqual(Array(200).fill('ok'));
    expect(replies.filter((r) => structured(r).replayed === true)).toHaveLength(199);
    expect(writes(desk)).toHaveLength(1);
  });

  it('binds an idempotency key to its arguments: reuse with other arguments is refused and writes nothing', async () => {
    desk = await startBookings();
    await desk.client().callTool('create_booking', { ...ADA, idempotency_key: 'order-000123' });
    const reused = await desk.client().callTool('create_booking', {
      ...ADA,
      start: '2030-06-01T09:00:00+02:00',
      idempotency_key: 'order-000123',
    });
    expect(structured(reused).error).toMatchObject({ code: 'idempotency_key_conflict' });
    expect(desk.rows).toHaveLength(1);
  });

  it('does not cache a refused call, and scopes fingerprints to the connection', async () => {
    desk = await startBookings();
    const invalid = await desk.client().callTool('create_booking', { ...ADA, email: 'not-an-email' });
    expect(structured(invalid).error).toMatchObject({ code: 'invalid_arguments' });
    await desk.client().callTool('create_booking', ADA);
    const other = await desk.client('tok_b').callTool('create_booking', ADA);
    expect(structured(other).replayed).toBeUndefined();
    expect(desk.rows.map((b) => b.tenantId)).toEqual(['t1', 't2']);
  });
});

describe('duplicateGuard (I11)', () => {
  it('refuses a second create with the same business key, naming the existing id and the update tool', async () => {
    desk = await startBookings();
    await desk.client().callTool('create_booking', ADA);
    const again = await desk.client().callTool('create_booking', { ...ADA, email: 'ada@work.example' });
    const error = structured(again).error!;
    expect(error).toMatchObject({
      code: 'duplicate',
      details: { existing_id: 'bk_1', update_tool: 'update_booking' },
    });
    expect((again.result as { content: { text: string }[] }).content[0]!.text).toContain(
      'Next: call update_booking with {"id":"bk_1"}',
    );
    expect(desk.rows).toHaveLength(1);
  });

  // The replay fingerprint covers guard-owned arguments (I10): `separate` and `reason`
  // are added by the duplicate guard, and a create sent with them is another call.
  // When the fingerprint was the digest of the tool's own arguments only (before
  // a47ece1), this second create was answered from the first one's record: one
  // booking, `replayed: true`, the override lost. From a47ece1 to a5d4439 the
  // fingerprint was right, but only on servers that installed replayGuard by hand;
  // every server with writes now needs a claim guard, and this test also proves the
  // stage is on (the plain re-send is replayed).
  it('creates a separate booking with otherwise identical arguments: the override is not a replay', async () => {
    desk = await startBookings();
    await desk.client().callTool('create_booking', ADA);
    expect(structured(await desk.client().callTool('create_booking', ADA)).replayed).toBe(true);
    const override = { ...ADA, separate: true, reason: 'second room' };
    const separate = await desk.client().callTool('create_booking', override);
    expect(structured(separate)).toEqual({
      status: 'ok',
      result: { booking: expect.objectContaining({ id: 'bk_2' }) },
    });
    expect(desk.rows.map((b) => b.id)).toEqual(['bk_1', 'bk_2']);
    expect(desk.runs).toEqual(['create_booking', 'create_booking']);
    expect(writes(desk).map((r) => [r.objectIds, r.note])).toEqual([
      [['bk_1'], null],
      [['bk_2'], 'separate: second room'],
    ]);
    const resent = await desk.client().callTool('create_booking', override);
    expect(structured(resent)).toEqual({ ...structured(separate), replayed: true, replay_note: REPLAY_NOTE });
    expect(desk.rows).toHaveLength(2);
    expect(writes(desk)).toHaveLength(2);
  });

  it('binds an idempotency key to the guard-owned arguments too: adding separate under a used key is a conflict', async () => {
    desk = await startBookings();
    await desk.client().callTool('create_booking', { ...ADA, idempotency_key: 'booking-ada-1' });
    const reused = await desk.client().callTool('create_booking', {
      ...ADA,
      separate: true,
      reason: 'second room',
      idempotency_key: 'booking-ada-1',
    });
    expect(structured(reused).error).toMatchObject({ code: 'idempotency_key_conflict' });
    expect(desk.rows).toHaveLength(1);
    expect(writes(desk)).toHaveLength(1);
  });

  it('creates anyway only with separate: true and a reason, recorded in the audit row', async () => {
    desk = await startBookings();
    await desk.client().callTool('create_booking', ADA);
    const noReason = await desk
      .client()
      .callTool('create_booking', { ...ADA, email: 'x@example.com', separate: true });
    expect(structured(noReason).error).toMatchObject({ code: 'invalid_arguments' });
    expect(desk.rows).toHaveLength(1);
    const separate = await desk
      .client()
      .callTool('create_booking', { ...ADA, email: 'x@example.com', separate: true, reason: 'second room' });
    expect(structured(separate).status).toBe('ok');
    expect(desk.rows).toHaveLength(2);
    expect(writes(desk).at(-1)).toMatchObject({
      action: 'create_booking',
      note: 'separate: second room',
      objectIds: ['bk_2'],
    });
  });
});

describe('versionGuard (I12)', () => {
  it('answers a stale version with conflict and the current state; the row is unchanged', async () => {
    desk = await startBookings();
    const created = structured(await desk.client().callTool('create_booking', ADA));
    const read = (created.result as { booking: { version: string } }).booking.version;
    desk.rows[0]!.start = '2030-05-04T10:00:00+02:00';
    const stale = await desk
      .client()
      .callTool('update_booking', { id: 'bk_1', version: read, start: '2030-05-05T09:00:00+02:00' });
    expect(structured(stale).error).toMatchObject({
      code: 'conflict',
      details: {
        current: { id: 'bk_1', start: '2030-05-04T10:00:00+02:00' },
        current_version: desk.versionOf(desk.rows[0]!),
      },
    });
    expect(desk.rows[0]!.start).toBe('2030-05-04T10:00:00+02:00');
    const fresh = await desk.client().callTool('update_booking', {
      id: 'bk_1',
      version: desk.versionOf(desk.rows[0]!),
      start: '2030-05-05T09:00:00+02:00',
    });
    expect(structured(fresh).status).toBe('ok');
    expect(desk.rows[0]!.start).toBe('2030-05-05T09:00:00+02:00');
  });
});

describe('batchCountGuard (I13)', () => {
  it('lists the 12 matches when expected_count is 3, and changes nothing', async () => {
    desk = await startBookings();
    for (let h = 0; h < 12; h++)
      await desk.client().callTool('create_booking', {
        ...ADA,
        start: `2030-05-04T${String(8 + h).padStart(2, '0')}:00:00+02:00`,
      });
    const reply = await desk.client().callTool('reschedule_bookings', {
      filter: { customer: 'Ada' },
      expected_count: 3,
      start: '2031-01-01T09:00:00Z',
    });
    const error = structured(reply).error!;
    expect(error).toMatchObject({ code: 'batch_count_mismatch', details: { expected_count: 3, total: 12 } });
    expect(error.details.matches).toHaveLength(12);
    expect(desk.rows.every((b) => b.start.startsWith('2030'))).toBe(true);
    expect(desk.runs.filter((r) => r === 'reschedule_bookings')).toEqual([]);
    const right = await desk.client().callTool('reschedule_bookings', {
      filter: { customer: 'Ada' },
      expected_count: 12,
      start: '2031-01-01T09:00:00Z',
    });
    expect(structured(right).status).toBe('ok');
    expect(desk.rows.every((b) => b.start === '2031-01-01T09:00:00Z')).toBe(true);
  });

  it('requires expected_count with a filter and bounds the batch size', async () => {
    desk = await startBookings();
    const noCount = await desk
      .client()
      .callTool('reschedule_bookings', { filter: { customer: 'Ada' }, start: 'x' });
    expect(structured(noCount).error).toMatchObject({ code: 'invalid_arguments' });
    const big = await desk
      .client()
      .callTool('reschedule_bookings', { ids: Array.from({ length: 51 }, (_, i) => `bk_${i}`), start: 'x' });
    expect(structured(big).error).toMatchObject({ code: 'batch_too_large' });
  });
});

describe('audit and list_recent_changes (I15)', () => {
  it('writes exactly one audit row with channel mcp per write, and lists this connection’s changes newest first', async () => {
    desk = await startBookings();
    await desk.client().callTool('create_booking', ADA);
    await desk.client().callTool('create_booking', { ...ADA, start: '2030-07-01T09:00:00Z' });
    await desk.client('tok_b').callTool('create_booking', ADA);
    await desk.client().callTool('find_bookings', {});
    expect(
      writes(desk).map((r) => [r.action, r.connectionId, r.clientName, r.tenantId, r.actorId, r.objectIds]),
    ).toEqual([
      ['create_booking', 'conn_tok_a', 'test', 't1', 'p1', ['bk_1']],
      ['create_booking', 'conn_tok_a', 'test', 't1', 'p1', ['bk_2']],
      ['create_booking', 'conn_tok_b', 'test', 't2', 'p1', ['bk_3']],
    ]);
    expect(JSON.stringify(desk.audit.rows)).not.toContain('ada@example.com');
    const page = structured(await desk.client().callTool('list_recent_changes', { limit: 1 })).result as {
      changes: { object_ids: string[]; at: { utc: string; from_now: string } }[];
      next_before: string;
    };
    expect(page.changes.map((c) => c.object_ids)).toEqual([['bk_2']]);
    expect(page.changes[0]!.at.from_now).toMatch(/now|second/);
    const next = structured(await desk.client().callTool('list_recent_changes', { before: page.next_before }))
      .result as {
      changes: { object_ids: string[] }[];
    };
    expect(next.changes.map((c) => c.object_ids)).toEqual([['bk_1']]);
  });
});

describe('enforced effect classes (I8)', () => {
  it('refuses a write tool that reaches the mailer port: no mail, an error, and a violation audit row', async () => {
    desk = await startBookings();
    const reply = await desk.client().callTool('sneaky_note', { booking_id: 'bk_1' });
    expect(structured(reply).error).toMatchObject({ code: 'effect_violation', details: { port: 'mailer' } });
    expect(desk.mails).toEqual([]);
    expect(desk.audit.rows).toEqual([
      expect.objectContaining({ action: 'sneaky_note', outcome: 'violation' }),
    ]);
  });
});
