import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { parseArguments } from '../src/internal/args.js';
import type { Ask } from '../src/internal/prompt.js';
import { directoryProblem, resolveOptions } from '../src/internal/resolve.js';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'create-resolve-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

/** Answers the questions in order, and records them. */
function scripted(answers: string[]) {
  const questions: string[] = [];
  const ask: Ask = async (question) => {
    questions.push(question);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected question: ${question}`);
    return answer;
  };
  return { ask, questions };
}

const usageError = async (work: Promise<unknown>) => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(UsageError.is(error), String(error)).toBe(true);
  return (error as Error).message;
};

describe('resolveOptions', () => {
  it('takes the defaults for what no flag says when nothing may be asked', async () => {
    expect(await resolveOptions(parseArguments([]), { cwd })).toEqual({
      directory: join(cwd, 'gatehouse-server'),
      name: 'gatehouse-server',
      store: 'sqlite',
      console: false,
    });
  });

  it('asks nothing when the flags say everything', async () => {
    const { ask, questions } = scripted([]);
    const options = await resolveOptions(parseArguments(['Ticket Desk', '--store', 'memory', '--console']), {
      cwd,
      ask,
    });
    expect(options).toEqual({
      directory: join(cwd, 'Ticket Desk'),
      name: 'ticket-desk',
      store: 'memory',
      console: true,
    });
    expect(questions).toEqual([]);
  });

  it('asks for what the flags leave out; an empty answer takes the default', async () => {
    const { ask, questions } = scripted(['', 'postgres', 'y']);
    const options = await resolveOptions(parseArguments([]), { cwd, ask });
    expect(options).toEqual({
      directory: join(cwd, 'gatehouse-server'),
      name: 'gatehouse-server',
      store: 'postgres',
      console: true,
    });
    expect(questions).toEqual([
      'Project folder (gatehouse-server): ',
      'Store: memory, sqlite, postgres (sqlite): ',
      'Include the console, where a person approves delete_ticket? y/n (n): ',
    ]);
  });

  it('asks again after a wrong answer, and gives up after three', async () => {
    const again = scripted(['mongo', 'memory']);
    const options = await resolveOptions(parseArguments(['desk', '--no-console']), { cwd, ask: again.ask });
    expect(options.store).toBe('memory');
    expect(again.questions[1]).toBe(
      'Choose one of memory, sqlite, postgres.\nStore: memory, sqlite, postgres (sqlite): ',
    );
    const stubborn = scripted(['maybe', 'perhaps', 'later']);
    expect(
      await usageError(
        resolveOptions(parseArguments(['desk', '--store', 'memory']), { cwd, ask: stubborn.ask }),
      ),
    ).toBe('Answer y or n.');
  });

  it('refuses a folder that is not empty, and one that is a file', async () => {
    mkdirSync(join(cwd, 'taken'));
    writeFileSync(join(cwd, 'taken', 'notes.txt'), 'mine');
    writeFileSync(join(cwd, 'file'), 'mine');
    expect(await usageError(resolveOptions(parseArguments(['taken']), { cwd }))).toBe(
      `${join(cwd, 'taken')} is not empty (notes.txt). Choose a new folder.`,
    );
    expect(await usageError(resolveOptions(parseArguments(['file']), { cwd }))).toBe(
      `${join(cwd, 'file')} exists and is not a folder.`,
    );
  });

  it('takes an empty folder, or one holding only .git', async () => {
    mkdirSync(join(cwd, 'repo', '.git'), { recursive: true });
    expect(directoryProblem(join(cwd, 'repo'))).toBeUndefined();
    expect((await resolveOptions(parseArguments(['repo']), { cwd })).directory).toBe(join(cwd, 'repo'));
  });

  it('refuses a name npm would not take, pointing at --name', async () => {
    expect(await usageError(resolveOptions(parseArguments(['fs']), { cwd }))).toBe(
      '"fs" cannot be the package name: "fs" is reserved. Give one with --name.',
    );
    expect(await usageError(resolveOptions(parseArguments(['desk', '--name', 'Desk']), { cwd }))).toBe(
      '"Desk" cannot be the package name: a package name is lowercase.',
    );
  });
});
