interface Waiter<TInput, TOutput> {
  readonly input: TInput;
  readonly resolve: (output: TOutput) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Runs calls of one key in batches, one batch at a time: a call of a key
 * with nothing in flight goes at once, alone; calls of that key arriving
 * while a batch is in flight wait together for the next, which goes as soon
 * as the one in flight has answered. `run` gets the inputs in arrival order
 * and answers one output per input, in the same order. A batch that fails
 * rejects each of its calls with that error; the next batch still goes.
 *
 * No call waits for more than the batch in flight and its own, and nothing
 * is held back when calls do not overlap: each then runs alone, as without
 * batching.
 */
export function batchPerKey<TInput, TOutput>(
  run: (key: string, inputs: readonly TInput[]) => Promise<readonly TOutput[]>,
): (key: string, input: TInput) => Promise<TOutput> {
  // A key is here while a batch of it is in flight; its value is the calls waiting for the next.
  const waiting = new Map<string, Waiter<TInput, TOutput>[]>();

  const send = (key: string, batch: Waiter<TInput, TOutput>[]): void => {
    waiting.set(key, []);
    const settle = async (): Promise<void> => {
      try {
        const outputs = await run(
          key,
          batch.map((waiter) => waiter.input),
        );
        if (outputs.length !== batch.length) {
          throw new Error(`batchPerKey: ${outputs.length} answers to a batch of ${batch.length} calls.`);
        }
        for (const [i, waiter] of batch.entries()) waiter.resolve(outputs[i] as TOutput);
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
      }
      const next = waiting.get(key) ?? [];
      if (next.length === 0) waiting.delete(key);
      else send(key, next);
    };
    void settle();
  };

  return (key, input) =>
    new Promise<TOutput>((resolve, reject) => {
      const queued = waiting.get(key);
      if (queued) queued.push({ input, resolve, reject });
      else send(key, [{ input, resolve, reject }]);
    });
}
