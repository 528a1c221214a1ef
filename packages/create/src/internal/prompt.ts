import { createInterface } from 'node:readline/promises';
import { UsageError } from '../errors.js';

/** Asks one question and answers the line typed (without the newline). */
export type Ask = (question: string) => Promise<string>;

/** Questions on a terminal through node:readline; `close` ends them. */
export function terminalAsker(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): { ask: Ask; close(): void } {
  const lines = createInterface({ input, output });
  let closed = false;
  const ended = new Promise<never>((_, reject) => {
    lines.once('close', () => {
      closed = true;
      reject(new UsageError('Cancelled: no answer was given.'));
    });
  });
  ended.catch(() => undefined);
  return {
    ask: (question) => (closed ? ended : Promise.race([lines.question(question), ended])),
    close: () => lines.close(),
  };
}

/**
 * Asks until `accept` takes the answer (an empty answer takes `fallback`);
 * after three refused answers, a UsageError naming the last problem.
 */
export async function askUntil<T>(
  ask: Ask,
  question: string,
  fallback: string,
  accept: (answer: string) => { ok: true; value: T } | { ok: false; problem: string },
): Promise<T> {
  let problem = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = (await ask(`${problem ? `${problem}\n` : ''}${question} (${fallback}): `)).trim();
    const taken = accept(answer === '' ? fallback : answer);
    if (taken.ok) return taken.value;
    problem = taken.problem;
  }
  throw new UsageError(problem);
}
