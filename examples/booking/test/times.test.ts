/**
 * Times and money at the MCP surface (I14, I20, I9): fields parsed further
 * are capped before any parsing, a time sent with only an offset is kept in
 * the workspace's zone, and every time the model sees in a preview or an
 * error is the full presented shape.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawHttpClient } from '@gatehousejs/testing';
import { Temporal } from 'temporal-polyfill';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, rawClient, structured } from './fixtures/raw.js';
import { berlin, seededTemplate, type TestApp, testApp } from './fixtures/testApp.js';

let dir = '';
let template = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'booking-times-'));
  template = await seededTemplate(dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clientOf = async (t: TestApp) => rawClient((await t.serve()).mcpUrl, await t.mint());

const confirm = (client: RawHttpClient, preview: Record<string, unknown>) =>
  client.callTool('confirm_action', {
    confirm_token: preview.confirm_token,
    confirm_summary: preview.confirm_summary,
  });

const createArgs = (startsAt: unknown) => ({
  customer_id: 'cu_alan',
  starts_at: startsAt,
  duration_minutes: 30,
  price: { minor_units: 4500, currency: 'EUR' },
});

/** An instant `ms` from now, whole seconds, so its presented `utc` is exact. */
const instantIn = (ms: number) =>
  Temporal.Instant.fromEpochMilliseconds(Math.floor((Date.now() + ms) / 1000) * 1000);

/** ISO 8601 with only an offset, no zone: `2026-03-30T14:30:00+05:00`. */
const withOffset = (instant: Temporal.Instant, offset: string) =>
  instant.toZonedDateTimeISO(offset).toString({ timeZoneName: 'never' });

const PRESENTED_KEYS = ['from_now', 'local', 'utc', 'weekday', 'zone'];

/** Asserts a value is a full presented time (I20) and returns it. */
function presented(value: unknown): Record<string, string> {
  expect(value).toBeTypeOf('object');
  const time = value as Record<string, string>;
  expect(Object.keys(time).sort()).toEqual(PRESENTED_KEYS);
  expect(time.from_now).toMatch(/^(in .+|.+ ago|now)$/);
  return time;
}

describe('caps on fields parsed further', () => {
  const zone = 'A'.repeat(60_000);

  it('refuses a 60,000-character zone in every time form as invalid_arguments, echoing at most 200 characters', async () => {
    await using t = await testApp({ template });
    const client = await clientOf(t);
    const replies = [
      await client.callTool('create_booking', createArgs({ local: '2027-01-05T10:00', zone })),
      await client.callTool('find_bookings', { from: `2027-01-05T10:00[${zone}]` }),
      await client.callTool('mute_alerts', {
        until: { local: '2027-01-05T10:00', zone },
        reason: 'Maintenance',
      }),
    ];
    for (const reply of replies) {
      expect(codeOf(reply)).toBe('invalid_arguments');
      expect(JSON.stringify(structured(reply))).not.toMatch(/A{201}/);
    }
    expect(structured(replies[0]!).error?.message).toMatch(/zone names have at most 64/);
    expect(await t.count('bookings', "customer_id = 'cu_alan'")).toBe(1);
  });

  it('refuses a 100 KiB zone name as invalid_arguments', async () => {
    await using t = await testApp({ template });
    const client = await clientOf(t);
    const reply = await client.callTool(
      'create_booking',
      createArgs({ local: '2027-01-05T10:00', zone: 'B'.repeat(100 * 1024) }),
    );
    expect(codeOf(reply)).toBe('invalid_arguments');
    expect(JSON.stringify(structured(reply))).not.toMatch(/B{201}/);
  });

  it('refuses a time string over 64 characters and an amount over 32 before parsing them', async () => {
    await using t = await testApp({ template });
    const client = await clientOf(t);
    const time = await client.callTool(
      'create_booking',
      createArgs(`2027-01-05T10:00:00+01:00${' '.repeat(50)}`),
    );
    expect(codeOf(time)).toBe('invalid_arguments');
    expect(structured(time).error?.message).toMatch(/a time has at most 64/);
    const price = await client.callTool('create_booking', {
      ...createArgs(berlin(20)),
      price: { amount: '9'.repeat(60_000), currency: 'EUR' },
    });
    expect(codeOf(price)).toBe('invalid_arguments');
    expect(structured(price).error?.message).toMatch(/an amount has at most 32/);
    expect(JSON.stringify(structured(price))).not.toMatch(/9{201}/);
    expect(await t.count('bookings', "customer_id = 'cu_alan'")).toBe(1);
  });
});

describe('a time sent with only an offset', () => {
  it('previews a mute in the workspace zone at the instant sent, even with an offset the zone does not have', async () => {
    await using t = await testApp({ template });
    const client = await clientOf(t);
    const until = instantIn(3 * 3_600_000);
    for (const offset of ['+05:00', '+00:00']) {
      const preview = structured(
        await client.callTool('mute_alerts', { until: withOffset(until, offset), reason: 'Maintenance' }),
      );
      const shown = presented((preview.content as { until: unknown }).until);
      expect(shown.zone).toBe('Europe/Berlin');
      expect(shown.utc).toBe(until.toString());
      expect(shown.local).toBe(
        until.toZonedDateTimeISO('Europe/Berlin').toString({ timeZoneName: 'never', smallestUnit: 'second' }),
      );
      expect(preview.confirm_summary).toContain('(Europe/Berlin)');
    }
  });

  // Fails until BookingService keeps an offset-only start in the workspace zone:
  // `withDefaultZone(startsAt, this.workspace.zone)` in create and update.
  it('stores a booking start sent with only an offset in the workspace zone, at the instant sent', async () => {
    await using t = await testApp({ template });
    const client = await clientOf(t);
    const start = Temporal.PlainDate.from(berlin(21).local.slice(0, 10))
      .toZonedDateTime({ timeZone: 'Europe/Berlin', plainTime: '10:00' })
      .toInstant();
    const created = structured(
      await client.callTool('create_booking', createArgs(withOffset(start, '+05:00'))),
    );
    const shown = presented((created.result as { starts_at: unknown }).starts_at);
    expect(shown.zone).toBe('Europe/Berlin');
    expect(shown.utc).toBe(start.toString());
    const id = (created.result as { id: string }).id;
    expect(
      await t.count(
        'bookings',
        "id = ? AND zone = 'Europe/Berlin' AND starts_at = ?",
        id,
        start.epochMilliseconds,
      ),
    ).toBe(1);
  });
});

describe('times in previews and errors', () => {
  it('shows the full time in the preview of every outward tool', async () => {
    await using t = await testApp({ template });
    const client = await clientOf(t);
    const mail = structured(await client.callTool('notify_customer', { booking_id: 'bk_ada_boiler' }));
    const mailed = mail.content as { booking: { id: string; starts_at: unknown } };
    expect(mailed.booking.id).toBe('bk_ada_boiler');
    expect(presented(mailed.booking.starts_at).zone).toBe('Europe/Berlin');
    const page = structured(
      await client.callTool('page_technician', {
        technician_id: 'te_kim',
        booking_id: 'bk_ada_boiler',
        message: 'Pressure alarm.',
      }),
    );
    presented((page.content as { booking: { starts_at: unknown } }).booking.starts_at);
    const deletion = structured(await client.callTool('delete_booking', { booking_id: 'bk_alan_check' }));
    const [deleted] = (deletion.content as { deletes: { starts_at: unknown }[] }).deletes;
    expect(presented(deleted?.starts_at).from_now).toMatch(/^in /);
    const mute = structured(
      await client.callTool('mute_alerts', {
        until: withOffset(instantIn(3_600_000), '+02:00'),
        reason: 'Drill',
      }),
    );
    expect(presented((mute.content as { until: unknown }).until).from_now).toMatch(
      /^in (1 hour|60 minutes)$/,
    );
  });

  it('shows the full time in the details of a refused mute and of a start in the past', async () => {
    await using t = await testApp({ template });
    const client = await clientOf(t);
    const mute = structured(
      await client.callTool('mute_alerts', {
        until: withOffset(instantIn(2 * 86_400_000), '+02:00'),
        reason: 'Long',
      }),
    );
    expect(mute.error?.code).toBe('invalid_arguments');
    expect(presented(mute.error?.details.until).zone).toBe('Europe/Berlin');
    expect(presented(mute.error?.details.latest).from_now).toMatch(/^in (24 hours|1 day)$/);
    const past = structured(await client.callTool('create_booking', createArgs(berlin(-2))));
    expect(past.error?.code).toBe('invalid_arguments');
    const start = presented(past.error?.details.starts_at);
    expect(start.zone).toBe('Europe/Berlin');
    expect(start.from_now).toMatch(/ ago$/);
  });

  it('confirms a preview whose from_now changed as the clock moved, and sends once', async () => {
    await using t = await testApp({ template });
    const client = await clientOf(t);
    const preview = structured(
      await client.callTool('mute_alerts', {
        until: withOffset(instantIn(30 * 60_000), '+02:00'),
        reason: 'Drill',
      }),
    );
    expect((preview.content as { until: { from_now: string } }).until.from_now).toBe('in 30 minutes');
    t.advance(5 * 60_000);
    expect(structured(await confirm(client, preview)).status).toBe('ok');
    expect(await t.count('alert_rules', "muted_until IS NOT NULL AND workspace_id = 'ws_acme'")).toBe(2);
  });
});
