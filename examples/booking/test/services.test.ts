import { parseTime } from '@gatehousejs/presenters';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/domain/errors.js';
import { LIMITS } from '../src/domain/model.js';
import { versions } from '../src/presenters.js';
import { berlin, testApp } from './fixtures/testApp.js';

const eur = (minor: number) => ({ minor, currency: 'EUR' });
const at = (days: number, time?: string) => parseTime(berlin(days, time));

/** The kind of the DomainError `work` rejects with: services throw the domain's errors, never a transport's. */
async function codeOf(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    if (error instanceof DomainError) return error.kind;
    throw error;
  }
  return 'no error';
}

const newBooking = (days = 10, time = '10:00') => ({
  customerId: 'cu_ada',
  technicianId: 'te_kim',
  startsAt: at(days, time),
  durationMinutes: 60,
  price: eur(9900),
});

describe('BookingService', () => {
  it('creates a booking in the actor’s workspace with its creator and time', async () => {
    await using t = await testApp();
    const booking = await t.servicesAs('ws_acme', 'p_dan').bookings.create(newBooking());
    expect(booking).toMatchObject({
      customer: { id: 'cu_ada' },
      technician: { id: 'te_kim' },
      status: 'scheduled',
    });
    expect(
      await t.count(
        'bookings',
        'id = ? AND workspace_id = ? AND created_by = ?',
        booking.id,
        'ws_acme',
        'p_dan',
      ),
    ).toBe(1);
  });

  it('refuses a start in the past, a duration out of bounds and a foreign currency, writing nothing', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const before = await t.count('bookings');
    expect(await codeOf(() => bookings.create({ ...newBooking(), startsAt: at(-1) }))).toBe('rule_broken');
    expect(await codeOf(() => bookings.create({ ...newBooking(), durationMinutes: 5 }))).toBe('rule_broken');
    expect(
      await codeOf(() => bookings.create({ ...newBooking(), price: { minor: 100, currency: 'USD' } })),
    ).toBe('rule_broken');
    expect(await codeOf(() => bookings.create({ ...newBooking(), startsAt: at(400) }))).toBe('rule_broken');
    expect(await t.count('bookings')).toBe(before);
  });

  it('resolves customers and technicians inside the workspace only: another workspace’s ids are not_found', async () => {
    await using t = await testApp();
    const { bookings, customers } = t.servicesAs('ws_acme', 'p_dan');
    const before = await t.count('bookings');
    expect(await codeOf(() => bookings.create({ ...newBooking(), customerId: 'cu_linus' }))).toBe(
      'not_found',
    );
    expect(await codeOf(() => bookings.create({ ...newBooking(), technicianId: 'te_sam' }))).toBe(
      'not_found',
    );
    expect(await codeOf(() => bookings.get('bk_linus_leak'))).toBe('not_found');
    expect(await codeOf(() => customers.get('cu_linus'))).toBe('not_found');
    expect((await bookings.find({})).map((b) => b.id)).not.toContain('bk_linus_leak');
    expect(await t.count('bookings')).toBe(before);
  });

  it('refuses to double-book a technician', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const first = await bookings.create(newBooking(12, '10:00'));
    const overlapping = { ...newBooking(12, '10:30'), customerId: 'cu_alan' };
    await expect(bookings.create(overlapping)).rejects.toThrow(first.id);
    expect((await bookings.create({ ...overlapping, technicianId: 'te_ravi' })).technician?.id).toBe(
      'te_ravi',
    );
  });

  it('sees an overlap with the longest booking allowed, started that long before, and not one minute more', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    // an 8-hour booking from 01:00 runs to 09:00: a booking at 08:59 overlaps it, one at 09:00 does not
    const longest = await bookings.create({
      ...newBooking(14, '01:00'),
      durationMinutes: LIMITS.maxDurationMinutes,
    });
    const touching = { ...newBooking(14, '08:59'), customerId: 'cu_alan', durationMinutes: 15 };
    await expect(bookings.create(touching)).rejects.toThrow(longest.id);
    expect((await bookings.create({ ...touching, startsAt: at(14, '09:00') })).technician?.id).toBe('te_kim');
  });

  it('updates with the version the caller read and refuses a stale one, leaving the row unchanged', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const read = await bookings.get('bk_ada_boiler');
    const moved = await bookings.update(read.id, versions.booking(read), { durationMinutes: 120 });
    expect(moved.durationMinutes).toBe(120);
    expect(
      await codeOf(() => bookings.update(read.id, versions.booking(read), { durationMinutes: 30 })),
    ).toBe('stale');
    expect((await bookings.get(read.id)).durationMinutes).toBe(120);
    expect(await t.count('bookings', 'id = ? AND revision = 2', read.id)).toBe(1);
  });

  it('gives A, B and A again three versions and refuses the version read before the change as stale', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const a = await bookings.get('bk_ada_boiler');
    const b = await bookings.update(a.id, versions.booking(a), { durationMinutes: a.durationMinutes + 30 });
    const aAgain = await bookings.update(a.id, versions.booking(b), { durationMinutes: a.durationMinutes });
    const seen = [a, b, aAgain].map((booking) => versions.booking(booking));
    expect(new Set(seen).size).toBe(3);
    expect(aAgain.revision).toBe(a.revision + 2);
    expect(await codeOf(() => bookings.update(a.id, versions.booking(a), { durationMinutes: 120 }))).toBe(
      'stale',
    );
    expect(await codeOf(() => bookings.update(a.id, versions.booking(b), { durationMinutes: 120 }))).toBe(
      'stale',
    );
    expect((await bookings.get(a.id)).durationMinutes).toBe(a.durationMinutes);
    expect(await t.count('bookings', 'id = ? AND revision = ?', a.id, a.revision + 2)).toBe(1);
  });

  it('increments the revision with every status change and batch reschedule, so versions never come back', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const read = await bookings.get('bk_ada_boiler');
    const confirmed = await bookings.update(read.id, versions.booking(read), { status: 'confirmed' });
    expect(confirmed.revision).toBe(read.revision + 1);
    const [later] = await bookings.reschedule({ ids: [read.id] }, 60);
    const [back] = await bookings.reschedule({ ids: [read.id] }, -60);
    expect(later?.revision).toBe(read.revision + 2);
    expect(back?.revision).toBe(read.revision + 3);
    expect(back?.startsAt.epochMilliseconds).toBe(confirmed.startsAt.epochMilliseconds);
    expect(versions.booking(back ?? read)).not.toBe(versions.booking(confirmed));
    expect(
      await codeOf(() => bookings.update(read.id, versions.booking(confirmed), { durationMinutes: 90 })),
    ).toBe('stale');
    expect(await t.count('bookings', 'id = ? AND revision = ?', read.id, read.revision + 3)).toBe(1);
  });

  it('answers conflict when another channel changed the booking after the caller read it', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const read = await bookings.get('bk_alan_check');
    await t.exec('UPDATE bookings SET duration_minutes = 50, revision = revision + 1 WHERE id = ?', read.id);
    expect(
      await codeOf(() => bookings.update(read.id, versions.booking(read), { durationMinutes: 90 })),
    ).toBe('stale');
    expect((await bookings.get(read.id)).durationMinutes).toBe(50);
  });

  it('allows only the status transitions of the booking’s life', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const scheduled = await bookings.get('bk_ada_boiler');
    expect(
      await codeOf(() => bookings.update(scheduled.id, versions.booking(scheduled), { status: 'completed' })),
    ).toBe('rule_broken');
    const cancelled = await bookings.update(scheduled.id, versions.booking(scheduled), {
      status: 'cancelled',
    });
    expect(
      await codeOf(() => bookings.update(cancelled.id, versions.booking(cancelled), { durationMinutes: 30 })),
    ).toBe('rule_broken');
    expect(await t.count('bookings', "id = ? AND status = 'cancelled'", scheduled.id)).toBe(1);
  });

  it('reschedules a batch all or nothing, and refuses a filter whose count differs', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const window = { fromMs: Date.now(), toMs: Date.now() + 30 * 86_400_000 };
    const starts = async () => (await bookings.find({})).map((b) => b.startsAt.epochMilliseconds);
    const before = await starts();
    expect(await codeOf(() => bookings.reschedule({ filter: window, expectedCount: 2 }, 60))).toBe(
      'count_mismatch',
    );
    expect(await codeOf(() => bookings.reschedule({ ids: ['bk_ada_boiler', 'bk_linus_leak'] }, 60))).toBe(
      'not_found',
    );
    expect(await codeOf(() => bookings.reschedule({ ids: ['bk_ada_boiler'] }, -10 * 86_400))).toBe(
      'rule_broken',
    );
    expect(await starts()).toEqual(before);
    const moved = await bookings.reschedule({ filter: window, expectedCount: 3 }, 60);
    expect(moved.map((b) => b.startsAt.epochMilliseconds)).toEqual(before.map((ms) => ms + 3_600_000));
  });

  it('keeps completed bookings as records and deletes others', async () => {
    await using t = await testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    await t.exec("UPDATE bookings SET status = 'completed' WHERE id = 'bk_grace_service'");
    expect(await codeOf(() => bookings.remove('bk_grace_service'))).toBe('rule_broken');
    expect((await bookings.remove('bk_alan_check')).id).toBe('bk_alan_check');
    expect(await t.count('bookings', "id IN ('bk_grace_service', 'bk_alan_check')")).toBe(1);
  });
});

describe('CustomerService', () => {
  it('finds customers by name or e-mail in the workspace, treating wildcards literally', async () => {
    await using t = await testApp();
    const { customers } = t.servicesAs('ws_acme', 'p_vera');
    expect((await customers.find('ada')).map((c) => c.id)).toEqual(['cu_ada']);
    expect(await customers.find('%')).toEqual([]);
    expect((await customers.find(undefined)).map((c) => c.id)).toEqual(['cu_ada', 'cu_alan', 'cu_grace']);
    expect(await customers.find('linus')).toEqual([]);
  });

  it('gives a customer a new version when its revision moves, even with the same content', async () => {
    await using t = await testApp();
    const { customers } = t.servicesAs('ws_acme', 'p_vera');
    const before = await customers.get('cu_ada');
    expect(before.revision).toBe(1);
    await t.exec("UPDATE customers SET revision = revision + 1 WHERE id = 'cu_ada'");
    const after = await customers.get('cu_ada');
    expect({ ...after, revision: before.revision }).toEqual(before);
    expect(versions.customer(after)).not.toBe(versions.customer(before));
    expect((await customers.find('ada'))[0]?.revision).toBe(2);
  });
});

describe('OutreachService', () => {
  it('drafts without sending, and sends exactly one row through the mailer port', async () => {
    await using t = await testApp();
    const { outreach } = t.servicesAs('ws_acme', 'p_dan');
    const draft = await outreach.draftMail('bk_ada_boiler', 'reminder', 'Bring\u202E the spare valve.');
    expect(draft).toMatchObject({ to: 'ada@example.com', customerId: 'cu_ada' });
    expect(draft.body).toContain('Bring the spare valve.');
    expect(await t.count('outbound_messages')).toBe(0);
    const sent = await outreach.sendMail(draft);
    expect(
      await t.count(
        'outbound_messages',
        'id = ? AND to_address = ? AND booking_id = ?',
        sent.id,
        'ada@example.com',
        'bk_ada_boiler',
      ),
    ).toBe(1);
  });

  it('pages only technicians on call', async () => {
    await using t = await testApp();
    const { outreach } = t.servicesAs('ws_acme', 'p_dan');
    expect(await codeOf(() => outreach.draftPage('te_ravi', undefined, 'Help'))).toBe('rule_broken');
    expect((await outreach.draftPage('te_kim', 'bk_ada_boiler', 'Boiler is leaking')).message).toContain(
      'bk_ada_boiler',
    );
  });
});

describe('AlertService', () => {
  it('refuses a mute beyond a day or in the past, and unknown rules', async () => {
    await using t = await testApp();
    const { alerts } = t.servicesAs('ws_acme', 'p_olivia');
    expect(await codeOf(() => alerts.planMute(undefined, at(3), 'night shift'))).toBe('rule_broken');
    expect(await codeOf(() => alerts.planMute(undefined, at(-1), 'night shift'))).toBe('rule_broken');
    expect(await codeOf(() => alerts.planMute(['ar_flood'], at(0, '23:59'), 'night shift'))).toBe(
      'not_found',
    );
    const inTwoHours = parseTime(new Date(Date.now() + 7_200_000).toISOString());
    const plan = await alerts.planMute(undefined, inTwoHours, 'night shift');
    expect(plan.rules.map((r) => r.id)).toEqual(['ar_pressure', 'ar_missed']);
    await alerts.mute(plan);
    expect(
      await t.count(
        'alert_rules',
        'workspace_id = ? AND muted_until = ?',
        'ws_acme',
        inTwoHours.epochMilliseconds,
      ),
    ).toBe(2);
    expect(await t.count('alert_mutes')).toBe(2);
  });
});
