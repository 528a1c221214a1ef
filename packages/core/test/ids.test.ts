import { describe, expect, it } from 'vitest';
import { newFence, newId } from '../src/internal/ids.js';

describe('pooled ids', () => {
  it('draws fences of 96 bits as 24 hex digits, none repeated across pool refills', () => {
    const fences = Array.from({ length: 5_000 }, () => newFence()); // ~15 refills of the pool
    for (const fence of fences) expect(fence).toMatch(/^[0-9a-f]{24}$/);
    expect(new Set(fences).size).toBe(fences.length);
    // every hex digit in every position is in use: the draw covers the whole range, not a corner of it
    for (let position = 0; position < 24; position++) {
      expect(new Set(fences.map((f) => f[position])).size).toBe(16);
    }
  });

  it('draws ULIDs that sort by time and never repeat', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => newId(1_700_000_000_000 + i));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
