// Section 1c: presenting a list of 20 bookings, each with a start time, an end time and a price,
// the way a read tool's presenter does. This build's presenters (each Intl formatter built once per
// locale, zone or currency) against the same output computed with a new formatter per value (how
// the presenters worked before), and, with --baseline, the baseline's own presenters package, in
// alternating rounds in this one process.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { moneyOf, presentInstant, presentMoney } from '@gatehousejs/presenters';
import { Temporal } from 'temporal-polyfill';
import { alternate } from './inProcess.mjs';

const NOW = new Date('2027-03-02T08:00:00Z');
const ZONE = 'Europe/Berlin';
const LIST = Array.from({ length: 20 }, (_, i) => ({
  starts: Temporal.Instant.fromEpochMilliseconds(NOW.getTime() + (i + 1) * 5_400_000),
  ends: Temporal.Instant.fromEpochMilliseconds(NOW.getTime() + (i + 1) * 5_400_000 + 3_600_000),
  price: 8_000 + i * 25,
}));

/** One list through a presenters package (`{ moneyOf, presentInstant, presentMoney }`). */
const listThrough = (p) => async () =>
  LIST.map((b) => ({
    starts_at: p.presentInstant(b.starts, { now: NOW }, { zone: ZONE }),
    ends_at: p.presentInstant(b.ends, { now: NOW }, { zone: ZONE }),
    price: p.presentMoney(p.moneyOf(b.price, 'EUR')),
  }));

/** The same figures with a new Intl formatter per value. */
function perValueIntl() {
  const when = (instant) => {
    const zoned = instant.toZonedDateTimeISO(ZONE);
    const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'always' });
    return {
      weekday: new Intl.DateTimeFormat('en-US', { weekday: 'long', timeZone: 'UTC' }).format(
        Date.UTC(2024, 0, zoned.dayOfWeek),
      ),
      local: zoned.toString({ timeZoneName: 'never', smallestUnit: 'second' }),
      zone: ZONE,
      utc: instant.toString({ smallestUnit: 'second' }),
      from_now: relative.format(Math.round((instant.epochMilliseconds - NOW.getTime()) / 3_600_000), 'hour'),
    };
  };
  return async () =>
    LIST.map((b) => ({
      starts_at: when(b.starts),
      ends_at: when(b.ends),
      price: {
        amount: (b.price / 100).toFixed(2),
        minor_units: b.price,
        currency: 'EUR',
        formatted: new Intl.NumberFormat('en-US', {
          style: 'currency',
          currency: 'EUR',
          minimumFractionDigits: 2,
          maximumFractionDigits: 2,
        }).format(b.price / 100),
      },
    }));
}

export async function runPresenters(plan, baselineDir) {
  const contenders = [
    {
      id: 'cached',
      label: 'this build (formatters built once)',
      make: () => listThrough({ moneyOf, presentInstant, presentMoney }),
    },
    { id: 'perValue', label: 'a new Intl formatter per value', make: perValueIntl },
  ];
  if (baselineDir) {
    const baseline = await import(pathToFileURL(join(baselineDir, 'packages/presenters/dist/index.js')).href);
    contenders.push({ id: 'baseline', label: 'baseline presenters', make: () => listThrough(baseline) });
  }
  // a list is 60 presented values: fewer calls per round than the single-write sections
  const calls = Math.max(100, Math.round(plan.calls / 10));
  return alternate(contenders, { rounds: plan.rounds, calls, warmupCalls: calls });
}
