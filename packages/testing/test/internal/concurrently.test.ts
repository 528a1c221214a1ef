import { describe, expect, it } from 'vitest';
import { concurrently } from '../../src/stores/fixture.js';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('concurrently (the store contracts’ concurrent calls)', () => {
  it('starts every call before any is awaited and answers their values in order', async () => {
    let started = 0;
    const values = await concurrently(5, async (i) => {
      started++;
      await later(5 - i);
      return i * 10;
    });
    expect(started).toBe(5);
    expect(values).toEqual([0, 10, 20, 30, 40]);
  });

  it('rejects with the first failure only after every other call has settled', async () => {
    const finished: number[] = [];
    const failure = new Error('the database did not answer');
    const outcome = concurrently(4, async (i) => {
      if (i === 0) throw failure;
      await later(20 * i);
      finished.push(i);
      return i;
    });
    await expect(outcome).rejects.toBe(failure);
    // a failed case leaves no call running into the next one
    expect(finished.sort()).toEqual([1, 2, 3]);
  });
});
