import {
  definePresenter,
  field,
  parseTime,
  presentInstant,
  timeInput,
  withDefaultZone,
} from '@gatehousejs/presenters';
import { Temporal } from 'temporal-polyfill';
import { z } from 'zod';

// #region reschedule-args
export const rescheduleArgs = z
  .object({
    booking_id: z.string(),
    starts_at: timeInput(),
  })
  .strict();
// #endregion reschedule-args

// #region stored-start
export function storedStart(args: z.output<typeof rescheduleArgs>, workspaceZone: string) {
  const startsAt = withDefaultZone(args.starts_at, workspaceZone);
  return { startsAtMs: startsAt.epochMilliseconds, zone: startsAt.timeZoneId };
}
// #endregion stored-start

export const startFromText = parseTime('2026-03-30T09:30[Europe/Berlin]');

// #region booking-presenter
export const bookingPresenter = definePresenter({
  name: 'booking',
  fields: {
    id: field.string(),
    starts_at: field.instant({ zone: 'Europe/Berlin' }).from('startsAt'),
  },
});
// #endregion booking-presenter

export function showBooking(now: Date) {
  return bookingPresenter.present(
    { id: 'bk_1', startsAt: Temporal.Instant.from('2026-03-30T07:30:00Z') },
    { now },
  );
}

// #region show-deadline
export function showDeadline(deadline: Date, now: Date) {
  return presentInstant(deadline, { now }, { zone: 'America/New_York' });
}
// #endregion show-deadline
