// batchPerKey: one batch of a key in flight at a time; calls arriving meanwhile go together next.
import { describe, expect, it } from 'vitest';
import { batchPerKey } from '../src/internal/batchPerKey.js';

/** A `run` whose batches answer only when the test says so; it records every batch it was given. */
function heldRun() {
  const batches: { key: string; inputs: readonly number[]; answer: (outputs?: unknown) => void }[] = [];
  const run = (key: string, inputs: readonly number[]) =>
    new Promise<readonly string[]>((resolve, reject) => {
      batches.push({
        key,
        inputs,
        answer: (outputs = inputs.map((n) => `${key}:${n}`)) =>
          outputs instanceof Error ? reject(outputs) : resolve(outputs as string[]),
      });
    });
  return { batches, call: batchPerKey(run) };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('batchPerKey', () => {
  it('runs a call of an idle key at once, alone', async () => {
    const { batches, call } = heldRun();
    const answer = call('a', 1);
    expect(batches.map((b) => b.inputs)).toEqual([[1]]);
    batches[0]?.answer();
    await expect(answer).resolves.toBe('a:1');
  });

  it('sends the calls that arrive while a batch is in flight as the next batch, in order, each with its answer', async () => {
    const { batches, call } = heldRun();
    const first = call('a', 1);
    const rest = [call('a', 2), call('a', 3), call('a', 4)];
    expect(batches).toHaveLength(1); // nothing more goes while the first is in flight
    batches[0]?.answer();
    await settled();
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2, 3, 4]]);
    const late = call('a', 5); // arrives while the second batch is in flight
    batches[1]?.answer();
    await settled();
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2, 3, 4], [5]]);
    batches[2]?.answer();
    expect(await Promise.all([first, ...rest, late])).toEqual(['a:1', 'a:2', 'a:3', 'a:4', 'a:5']);
  });

  it('keeps keys apart: a key never waits for another', async () => {
    const { batches, call } = heldRun();
    const a = call('a', 1);
    const b = call('b', 1);
    expect(batches.map((x) => [x.key, x.inputs])).toEqual([
      ['a', [1]],
      ['b', [1]],
    ]);
    batches[1]?.answer();
    await expect(b).resolves.toBe('b:1');
    batches[0]?.answer();
    await expect(a).resolves.toBe('a:1');
  });

  it('rejects every call of a failed batch with its error, and still sends the next batch', async () => {
    const { batches, call } = heldRun();
    const first = call('a', 1);
    const second = [call('a', 2), call('a', 3)];
    const failure = new Error('connection lost');
    batches[0]?.answer(failure);
    await expect(first).rejects.toBe(failure);
    await settled();
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2, 3]]);
    batches[1]?.answer(new Error('still down'));
    for (const call of second) await expect(call).rejects.toThrow('still down');
    // the key is idle again: the next call goes at once
    const after = call('a', 4);
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2, 3], [4]]);
    batches[2]?.answer();
    await expect(after).resolves.toBe('a:4');
  });

  it('rejects a batch answered with the wrong number of outputs', async () => {
    const { batches, call } = heldRun();
    const first = call('a', 1);
    const second = [call('a', 2), call('a', 3)];
    batches[0]?.answer();
    await first;
    await settled();
    batches[1]?.answer(['a:2']);
    for (const call of second) await expect(call).rejects.toThrow('1 answers to a batch of 2 calls');
  });

  it('rejects the calls of a batch whose run throws at once', async () => {
    const call = batchPerKey<number, number>(() => {
      throw new Error('bad statement');
    });
    await expect(call('a', 1)).rejects.toThrow('bad statement');
    await expect(call('a', 2)).rejects.toThrow('bad statement');
  });
});
