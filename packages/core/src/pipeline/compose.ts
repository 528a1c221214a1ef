import type { Guard, Next, Outcome, ToolCall } from './guard.js';

/**
 * Runs `guards` in order around `last`. Each guard gets a `next` that may be
 * called at most once; calling it twice is a programming error and rejects.
 */
export function compose(guards: readonly Guard[], call: ToolCall, last: Next): Promise<Outcome> {
  let reached = -1;
  const dispatch = (index: number): Promise<Outcome> => {
    if (index <= reached) return Promise.reject(new Error('A guard called next() more than once.'));
    reached = index;
    const handle = guards[index]?.handle;
    if (index >= guards.length) return last();
    if (handle === undefined) return dispatch(index + 1);
    return handle(call, () => dispatch(index + 1));
  };
  return dispatch(0);
}
