import { describe, expect, it } from 'vitest';
import { digest } from '../src/hashing.js';
import { contentDigest } from '../src/internal/contentDigest.js';
import type { Json } from '../src/json.js';
import { presentUtc } from '../src/time.js';

const at = Date.UTC(2026, 2, 30, 7, 30);
const berlin = (fromNow: string) => ({
  weekday: 'Monday',
  local: '2026-03-30T09:30:00+02:00',
  zone: 'Europe/Berlin',
  utc: '2026-03-30T07:30:00Z',
  from_now: fromNow,
});

describe('contentDigest', () => {
  it('gives the same digest for the same instant and zone whatever from_now says', () => {
    const early = { until: presentUtc(at, new Date(at - 3 * 86_400_000)) };
    const late = { until: presentUtc(at, new Date(at - 3_600_000)) };
    expect(early.until.from_now).not.toBe(late.until.from_now);
    expect(contentDigest(early)).toBe(contentDigest(late));
    expect(contentDigest({ starts_at: berlin('in 3 days') })).toBe(
      contentDigest({ starts_at: berlin('in 2 days') }),
    );
  });

  it('ignores the wording of weekday and local for the same instant and zone', () => {
    const german = { ...berlin('in 3 Tagen'), weekday: 'Montag', local: '2026-03-30T09:30+02:00' };
    expect(contentDigest({ starts_at: german })).toBe(contentDigest({ starts_at: berlin('in 3 days') }));
  });

  it('changes with the instant or the zone', () => {
    const base = contentDigest({ starts_at: berlin('in 3 days') });
    const later = { ...berlin('in 3 days'), utc: '2026-03-30T08:30:00Z' };
    const london = { ...berlin('in 3 days'), zone: 'Europe/London' };
    expect(contentDigest({ starts_at: later })).not.toBe(base);
    expect(contentDigest({ starts_at: london })).not.toBe(base);
  });

  it('reduces presented times nested in arrays and objects, and keeps everything else', () => {
    const content = (fromNow: string, name: string): Json => ({
      deletes: [{ booking_id: 'bk_1', customer: name, starts_at: berlin(fromNow) }],
      window: { from: berlin(fromNow), to: [berlin(fromNow)] },
    });
    expect(contentDigest(content('in 3 days', 'Ada'))).toBe(contentDigest(content('in 2 days', 'Ada')));
    expect(contentDigest(content('in 3 days', 'Ada'))).not.toBe(contentDigest(content('in 3 days', 'Bob')));
    expect(contentDigest(content('in 3 days', 'Ada'))).toBe(
      digest({
        deletes: [
          {
            booking_id: 'bk_1',
            customer: 'Ada',
            starts_at: { utc: '2026-03-30T07:30:00Z', zone: 'Europe/Berlin' },
          },
        ],
        window: {
          from: { utc: '2026-03-30T07:30:00Z', zone: 'Europe/Berlin' },
          to: [{ utc: '2026-03-30T07:30:00Z', zone: 'Europe/Berlin' }],
        },
      }),
    );
  });

  it('hashes objects that only resemble a presented time as they are', () => {
    const extra = { ...berlin('in 3 days'), note: 'x' };
    expect(contentDigest({ t: extra })).toBe(digest({ t: extra }));
    expect(contentDigest({ t: { ...extra, note: 'y' } })).not.toBe(contentDigest({ t: extra }));
    const partial = { utc: '2026-03-30T07:30:00Z', zone: 'UTC', from_now: 'in 3 days' };
    expect(contentDigest({ t: partial })).toBe(digest({ t: partial }));
    expect(contentDigest('text')).toBe(digest('text'));
    expect(contentDigest(null)).toBe(digest(null));
  });

  it('leaves the content it is given unchanged', () => {
    const content = { until: berlin('in 3 days') };
    contentDigest(content);
    expect(content.until.from_now).toBe('in 3 days');
  });
});
