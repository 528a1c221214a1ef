import { describe, expect, it } from 'vitest';
import { ExpiringMap } from '../src/internal.js';

describe('ExpiringMap', () => {
  it('hides an entry once it expires and sweeps expired entries on later writes', () => {
    const map = new ExpiringMap<string, number>();
    map.set('a', 1, 100, 0);
    expect(map.get('a', 99)).toBe(1);
    expect(map.get('a', 100)).toBeUndefined();
    map.set('b', 2, 150, 0);
    map.set('c', 3, 300, 200); // the write at 200 sweeps b
    expect(map.size).toBe(1);
  });

  it('keeps at most limit entries, letting the soonest-expiring live one go, not one set again later', () => {
    const map = new ExpiringMap<string, number>({ limit: 2 });
    map.set('a', 1, 100, 0);
    map.set('b', 2, 200, 0);
    map.set('a', 10, 300, 0); // a set again: its old expiry (100) is stale in the heap
    map.set('c', 3, 400, 0); // over the limit: b (200) goes, not a
    expect(map.size).toBe(2);
    expect([map.get('a', 0), map.get('b', 0), map.get('c', 0)]).toEqual([10, undefined, 3]);
  });
});
