import { afterEach, describe, expect, it } from 'vitest';
import { startBookings, structured } from './bookings.js';

type Desk = Awaited<ReturnType<typeof startBookings>>;
let desk: Desk;
afterEach(async () => desk?.served.close());

const ADA = { customer: 'Ada', email: 'ada@example.com', start: '2030-05-04T09:00:00+02:00' };
const SLOW = 0.001; // refill per second: no token comes back during a test
const limited = (reply: Parameters<typeof structured>[0], effect: string) =>
  expect(structured(reply).error).toMatchObject({
    code: 'rate_limited',
    details: { effect, retry_after_seconds: expect.any(Number) },
  });

interface Preview {
  confirm_token: string;
  next: { arguments: { confirm_token: string; confirm_summary: string } };
}
const preview = async (d: Desk) =>
  structured(await d.client().callTool('notify_customer', { booking_id: 'bk_1' })) as unknown as Preview;

// The rate table (I7): one token per call at admission, from the tool's effect
// class; confirm_action, reject_action and list_recent_changes take from `read`;
// a replayed result gives its token back.
//
// Before a5d4439 the rate guard took from `call.tool.effect` for every call, and
// confirm_action (effect `write`) also ran the target tool's guard chain, rate
// guard included: a confirmation took a `write` token and a second `notify`
// token (so with notify capacity 1 it was `rate_limited`), and every replayed
// re-send took another `write` token that never came back.
describe('rateGuard buckets (I7)', () => {
  it('charges a preview to its outward class and its confirmation and a replayed re-send to read, once', async () => {
    desk = await startBookings({
      rate: {
        notify: { capacity: 1, refillPerSecond: SLOW },
        read: { capacity: 3, refillPerSecond: SLOW },
      },
    });
    await desk.client().callTool('create_booking', ADA);
    const first = await preview(desk);
    const confirmed = await desk.client().callTool('confirm_action', first.next.arguments);
    expect(structured(confirmed).status).toBe('ok');
    const resent = await desk.client().callTool('confirm_action', first.next.arguments);
    expect(structured(resent)).toMatchObject({ status: 'ok', replayed: true });
    expect(desk.mails).toHaveLength(1);
    // notify: the preview took the only token; the confirmation took none
    limited(await desk.client().callTool('notify_customer', { booking_id: 'bk_1' }), 'notify');
    expect(desk.pending.size).toBe(1);
    // read: the confirmation took one, the replayed re-send gave its own back; two are left
    expect(structured(await desk.client().callTool('find_bookings', {})).status).toBe('ok');
    expect(structured(await desk.client().callTool('find_bookings', {})).status).toBe('ok');
    limited(await desk.client().callTool('find_bookings', {}), 'read');
    expect(desk.mails).toHaveLength(1);
  });

  it('takes confirm_action, reject_action and list_recent_changes from the read bucket, never the outward one', async () => {
    desk = await startBookings({
      rate: {
        notify: { capacity: 3, refillPerSecond: SLOW },
        read: { capacity: 3, refillPerSecond: SLOW },
      },
    });
    await desk.client().callTool('create_booking', ADA);
    const kept = await preview(desk);
    const dropped = await preview(desk);
    expect(structured(await desk.client().callTool('confirm_action', kept.next.arguments)).status).toBe('ok');
    const rejected = await desk.client().callTool('reject_action', { confirm_token: dropped.confirm_token });
    expect(structured(rejected).status).toBe('ok');
    expect(structured(await desk.client().callTool('list_recent_changes', {})).status).toBe('ok');
    limited(await desk.client().callTool('find_bookings', {}), 'read');
    limited(await desk.client().callTool('confirm_action', kept.next.arguments), 'read');
    // notify: two previews took two tokens; one is left for the next preview
    expect(structured(await desk.client().callTool('notify_customer', { booking_id: 'bk_1' })).status).toBe(
      'PREVIEW',
    );
    limited(await desk.client().callTool('notify_customer', { booking_id: 'bk_1' }), 'notify');
    expect(desk.mails).toHaveLength(1);
  });

  // A replay still takes its token at admission (the rate stage comes before any
  // argument work, so before the replay claim), and a replayed result gives it
  // back: a re-send costs nothing, but needs a token free when it arrives.
  it('refunds the write token of a replayed re-send: the next different write still runs', async () => {
    desk = await startBookings({ rate: { write: { capacity: 2, refillPerSecond: SLOW } } });
    expect(structured(await desk.client().callTool('create_booking', ADA)).status).toBe('ok');
    expect(structured(await desk.client().callTool('create_booking', ADA)).replayed).toBe(true);
    const other = { ...ADA, start: '2030-05-05T09:00:00+02:00' };
    expect(structured(await desk.client().callTool('create_booking', other)).status).toBe('ok');
    limited(
      await desk.client().callTool('create_booking', { ...ADA, start: '2030-05-06T09:00:00+02:00' }),
      'write',
    );
    expect(desk.rows.map((b) => b.start)).toEqual([ADA.start, other.start]);
    expect(desk.runs).toEqual(['create_booking', 'create_booking']);
    expect(desk.audit.rows.filter((r) => r.channel === 'mcp')).toHaveLength(2);
  });

  it('answers a re-send that finds the write bucket empty with rate_limited, not with its replay', async () => {
    desk = await startBookings({ rate: { write: { capacity: 1, refillPerSecond: SLOW } } });
    expect(structured(await desk.client().callTool('create_booking', ADA)).status).toBe('ok');
    limited(await desk.client().callTool('create_booking', ADA), 'write');
    expect(desk.rows).toHaveLength(1);
    expect(desk.runs).toEqual(['create_booking']);
    expect(desk.audit.rows.filter((r) => r.channel === 'mcp')).toHaveLength(1);
  });
});
