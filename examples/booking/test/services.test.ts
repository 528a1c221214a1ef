import { ToolError } from '@gatehousejs/core';
import { parseTime } from '@gatehousejs/presenters';
import { describe, expect, it } from 'vitest';
import { versions } from '../src/presenters.js';
import { berlin, testApp } from './fixtures/testApp.js';

const eur = (minor: number) => ({ minor, currency: 'EUR' });
const at = (days: number, time?: string) => parseTime(berlin(days, time));

/** The code of the ToolError `work` throws. */
function codeOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (ToolError.is(error)) return error.code;
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
    await using t = testApp();
    const booking = t.servicesAs('ws_acme', 'p_dan').bookings.create(newBooking());
    expect(booking).toMatchObject({
      customer: { id: 'cu_ada' },
      technician: { id: 'te_kim' },
      status: 'scheduled',
    });
    expect(
      t.count('bookings', 'id = ? AND workspace_id = ? AND created_by = ?', booking.id, 'ws_acme', 'p_dan'),
    ).toBe(1);
  });

  it('refuses a start in the past, a duration out of bounds and a foreign currency, writing nothing', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const before = t.count('bookings');
    expect(codeOf(() => bookings.create({ ...newBooking(), startsAt: at(-1) }))).toBe('invalid_arguments');
    expect(codeOf(() => bookings.create({ ...newBooking(), durationMinutes: 5 }))).toBe('invalid_arguments');
    expect(codeOf(() => bookings.create({ ...newBooking(), price: { minor: 100, currency: 'USD' } }))).toBe(
      'invalid_arguments',
    );
    expect(codeOf(() => bookings.create({ ...newBooking(), startsAt: at(400) }))).toBe('invalid_arguments');
    expect(t.count('bookings')).toBe(before);
  });

  it('resolves customers and technicians inside the workspace only: another workspace’s ids are not_found', async () => {
    await using t = testApp();
    const { bookings, customers } = t.servicesAs('ws_acme', 'p_dan');
    const before = t.count('bookings');
    expect(codeOf(() => bookings.create({ ...newBooking(), customerId: 'cu_linus' }))).toBe('not_found');
    expect(codeOf(() => bookings.create({ ...newBooking(), technicianId: 'te_sam' }))).toBe('not_found');
    expect(codeOf(() => bookings.get('bk_linus_leak'))).toBe('not_found');
    expect(codeOf(() => customers.get('cu_linus'))).toBe('not_found');
    expect(bookings.find({}).map((b) => b.id)).not.toContain('bk_linus_leak');
    expect(t.count('bookings')).toBe(before);
  });

  it('refuses to double-book a technician', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const first = bookings.create(newBooking(12, '10:00'));
    const overlapping = { ...newBooking(12, '10:30'), customerId: 'cu_alan' };
    expect(() => bookings.create(overlapping)).toThrow(first.id);
    expect(bookings.create({ ...overlapping, technicianId: 'te_ravi' }).technician?.id).toBe('te_ravi');
  });

  it('updates with the version the caller read and refuses a stale one, leaving the row unchanged', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const read = bookings.get('bk_ada_boiler');
    const moved = bookings.update(read.id, versions.booking(read), { durationMinutes: 120 });
    expect(moved.durationMinutes).toBe(120);
    expect(codeOf(() => bookings.update(read.id, versions.booking(read), { durationMinutes: 30 }))).toBe(
      'conflict',
    );
    expect(bookings.get(read.id).durationMinutes).toBe(120);
    expect(t.count('bookings', 'id = ? AND revision = 2', read.id)).toBe(1);
  });

  it('gives A, B and A again three versions and refuses the version read before the change as stale', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const a = bookings.get('bk_ada_boiler');
    const b = bookings.update(a.id, versions.booking(a), { durationMinutes: a.durationMinutes + 30 });
    const aAgain = bookings.update(a.id, versions.booking(b), { durationMinutes: a.durationMinutes });
    const seen = [a, b, aAgain].map((booking) => versions.booking(booking));
    expect(new Set(seen).size).toBe(3);
    expect(aAgain.revision).toBe(a.revision + 2);
    expect(codeOf(() => bookings.update(a.id, versions.booking(a), { durationMinutes: 120 }))).toBe(
      'conflict',
    );
    expect(codeOf(() => bookings.update(a.id, versions.booking(b), { durationMinutes: 120 }))).toBe(
      'conflict',
    );
    expect(bookings.get(a.id).durationMinutes).toBe(a.durationMinutes);
    expect(t.count('bookings', 'id = ? AND revision = ?', a.id, a.revision + 2)).toBe(1);
  });

  it('increments the revision with every status change and batch reschedule, so versions never come back', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const read = bookings.get('bk_ada_boiler');
    const confirmed = bookings.update(read.id, versions.booking(read), { status: 'confirmed' });
    expect(confirmed.revision).toBe(read.revision + 1);
    const [later] = bookings.reschedule({ ids: [read.id] }, 60);
    const [back] = bookings.reschedule({ ids: [read.id] }, -60);
    expect(later?.revision).toBe(read.revision + 2);
    expect(back?.revision).toBe(read.revision + 3);
    expect(back?.startsAt.epochMilliseconds).toBe(confirmed.startsAt.epochMilliseconds);
    expect(versions.booking(back ?? read)).not.toBe(versions.booking(confirmed));
    expect(codeOf(() => bookings.update(read.id, versions.booking(confirmed), { durationMinutes: 90 }))).toBe(
      'conflict',
    );
    expect(t.count('bookings', 'id = ? AND revision = ?', read.id, read.revision + 3)).toBe(1);
  });

  it('answers conflict when another channel changed the booking after the caller read it', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const read = bookings.get('bk_alan_check');
    t.app.database.db
      .prepare('UPDATE bookings SET duration_minutes = 50, revision = revision + 1 WHERE id = ?')
      .run(read.id);
    expect(codeOf(() => bookings.update(read.id, versions.booking(read), { durationMinutes: 90 }))).toBe(
      'conflict',
    );
    expect(bookings.get(read.id).durationMinutes).toBe(50);
  });

  it('allows only the status transitions of the booking’s life', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const scheduled = bookings.get('bk_ada_boiler');
    expect(
      codeOf(() => bookings.update(scheduled.id, versions.booking(scheduled), { status: 'completed' })),
    ).toBe('invalid_arguments');
    const cancelled = bookings.update(scheduled.id, versions.booking(scheduled), { status: 'cancelled' });
    expect(
      codeOf(() => bookings.update(cancelled.id, versions.booking(cancelled), { durationMinutes: 30 })),
    ).toBe('invalid_arguments');
    expect(t.count('bookings', "id = ? AND status = 'cancelled'", scheduled.id)).toBe(1);
  });

  it('reschedules a batch all or nothing, and refuses a filter whose count differs', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    const window = { fromMs: Date.now(), toMs: Date.now() + 30 * 86_400_000 };
    const starts = () => bookings.find({}).map((b) => b.startsAt.epochMilliseconds);
    const before = starts();
    expect(codeOf(() => bookings.reschedule({ filter: window, expectedCount: 2 }, 60))).toBe(
      'batch_count_mismatch',
    );
    expect(codeOf(() => bookings.reschedule({ ids: ['bk_ada_boiler', 'bk_linus_leak'] }, 60))).toBe(
      'not_found',
    );
    expect(codeOf(() => bookings.reschedule({ ids: ['bk_ada_boiler'] }, -10 * 86_400))).toBe(
      'invalid_arguments',
    );
    expect(starts()).toEqual(before);
    const moved = bookings.reschedule({ filter: window, expectedCount: 3 }, 60);
    expect(moved.map((b) => b.startsAt.epochMilliseconds)).toEqual(before.map((ms) => ms + 3_600_000));
  });

  it('keeps completed bookings as records and deletes others', async () => {
    await using t = testApp();
    const { bookings } = t.servicesAs('ws_acme', 'p_dan');
    t.app.database.db.prepare("UPDATE bookings SET status = 'completed' WHERE id = 'bk_grace_service'").run();
    expect(codeOf(() => bookings.remove('bk_grace_service'))).toBe('invalid_arguments');
    expect(bookings.remove('bk_alan_check').id).toBe('bk_alan_check');
    expect(t.count('bookings', "id IN ('bk_grace_service', 'bk_alan_check')")).toBe(1);
  });
});

describe('CustomerService', () => {
  it('finds customers by name or e-mail in the workspace, treating wildcards literally', async () => {
    await using t = testApp();
    const { customers } = t.servicesAs('ws_acme', 'p_vera');
    expect(customers.find('ada').map((c) => c.id)).toEqual(['cu_ada']);
    expect(customers.find('%')).toEqual([]);
    expect(customers.find(undefined).map((c) => c.id)).toEqual(['cu_ada', 'cu_alan', 'cu_grace']);
    expect(customers.find('linus')).toEqual([]);
  });

  it('gives a customer a new version when its revision moves, even with the same content', async () => {
    await using t = testApp();
    const { customers } = t.servicesAs('ws_acme', 'p_vera');
    const before = customers.get('cu_ada');
    expect(before.revision).toBe(1);
    t.app.database.db.prepare("UPDATE customers SET revision = revision + 1 WHERE id = 'cu_ada'").run();
    const after = customers.get('cu_ada');
    expect({ ...after, revision: before.revision }).toEqual(before);
    expect(versions.customer(after)).not.toBe(versions.customer(before));
    expect(customers.find('ada')[0]?.revision).toBe(2);
  });
});

describe('OutreachService', () => {
  it('drafts without sending, and sends exactly one row through the mailer port', async () => {
    await using t = testApp();
    const { outreach } = t.servicesAs('ws_acme', 'p_dan');
    const draft = outreach.draftMail('bk_ada_boiler', 'reminder', 'Bring\u202E the spare valve.');
    expect(draft).toMatchObject({ to: 'ada@example.com', customerId: 'cu_ada' });
    expect(draft.body).toContain('Bring the spare valve.');
    expect(t.count('outbound_messages')).toBe(0);
    const sent = outreach.sendMail(draft);
    expect(
      t.count(
        'outbound_messages',
        'id = ? AND to_address = ? AND booking_id = ?',
        sent.id,
        'ada@example.com',
        'bk_ada_boiler',
      ),
    ).toBe(1);
  });

  it('pages only technicians on call', async () => {
    await using t = testApp();
    const { outreach } = t.servicesAs('ws_acme', 'p_dan');
    expect(codeOf(() => outreach.draftPage('te_ravi', undefined, 'Help'))).toBe('invalid_arguments');
    expect(outreach.draftPage('te_kim', 'bk_ada_boiler', 'Boiler is leaking').message).toContain(
      'bk_ada_boiler',
    );
  });
});

describe('AlertService', () => {
  it('refuses a mute beyond a day or in the past, and unknown rules', async () => {
    await using t = testApp();
    const { alerts } = t.servicesAs('ws_acme', 'p_olivia');
    expect(codeOf(() => alerts.planMute(undefined, at(3), 'night shift'))).toBe('invalid_arguments');
    expect(codeOf(() => alerts.planMute(undefined, at(-1), 'night shift'))).toBe('invalid_arguments');
    expect(codeOf(() => alerts.planMute(['ar_flood'], at(0, '23:59'), 'night shift'))).toBe('not_found');
    const inTwoHours = parseTime(new Date(Date.now() + 7_200_000).toISOString());
    const plan = alerts.planMute(undefined, inTwoHours, 'night shift');
    expect(plan.rules.map((r) => r.id)).toEqual(['ar_pressure', 'ar_missed']);
    alerts.mute(plan);
    expect(
      t.count('alert_rules', 'workspace_id = ? AND muted_until = ?', 'ws_acme', inTwoHours.epochMilliseconds),
    ).toBe(2);
    expect(t.count('alert_mutes')).toBe(2);
  });
});
