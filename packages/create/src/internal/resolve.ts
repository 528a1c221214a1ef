import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { DEFAULTS, isStore, type ProjectOptions, STORES } from '../options.js';
import type { ParsedArguments } from './args.js';
import { nameFromDirectory, packageNameProblem } from './names.js';
import { type Ask, askUntil } from './prompt.js';

/** How to fill in what the command line left out. */
export interface ResolveContext {
  /** Where a relative folder is created. */
  readonly cwd: string;
  /** Asks a question; absent when nothing may be asked (CI, no terminal, `--yes`). */
  readonly ask?: Ask | undefined;
}

/** Why a folder cannot take a new project, or `undefined` when it can (absent, or empty but for `.git`). */
export function directoryProblem(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  if (!statSync(path).isDirectory()) return `${path} exists and is not a folder.`;
  const entries = readdirSync(path).filter((entry) => entry !== '.git');
  if (entries.length > 0)
    return `${path} is not empty (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}). Choose a new folder.`;
  return undefined;
}

const yesNo = (answer: string) =>
  /^(y|yes)$/i.test(answer)
    ? ({ ok: true, value: true } as const)
    : /^(n|no)$/i.test(answer)
      ? ({ ok: true, value: false } as const)
      : ({ ok: false, problem: 'Answer y or n.' } as const);

/**
 * The project to create: the flags, then answers to questions for what they
 * leave out (when `ask` is given), then the defaults. Refuses (UsageError)
 * a folder that is not empty and a name npm would not take.
 */
export async function resolveOptions(
  parsed: ParsedArguments,
  context: ResolveContext,
): Promise<ProjectOptions> {
  const ask = context.ask;
  const folderOk = (answer: string) => {
    const problem = directoryProblem(resolve(context.cwd, answer));
    return problem ? ({ ok: false, problem } as const) : ({ ok: true, value: answer } as const);
  };
  const directory =
    parsed.directory ??
    (ask ? await askUntil(ask, 'Project folder', DEFAULTS.directory, folderOk) : DEFAULTS.directory);
  const path = resolve(context.cwd, directory);
  const problem = directoryProblem(path);
  if (problem) throw new UsageError(problem);
  const name = parsed.name ?? nameFromDirectory(path);
  const nameProblem = packageNameProblem(name);
  if (nameProblem)
    throw new UsageError(
      `"${name}" cannot be the package name: ${nameProblem}.${parsed.name === undefined ? ' Give one with --name.' : ''}`,
    );
  const store =
    parsed.store ??
    (ask
      ? await askUntil(ask, `Store: ${STORES.join(', ')}`, DEFAULTS.store, (answer) =>
          isStore(answer)
            ? { ok: true, value: answer }
            : { ok: false, problem: `Choose one of ${STORES.join(', ')}.` },
        )
      : DEFAULTS.store);
  const console =
    parsed.console ??
    (ask
      ? await askUntil(ask, 'Include the console, where a person approves delete_ticket? y/n', 'n', yesNo)
      : DEFAULTS.console);
  return { directory: path, name, store, console };
}

/** Whether anything is left for a question to settle. */
export const needsAnswers = (parsed: ParsedArguments): boolean =>
  parsed.directory === undefined || parsed.store === undefined || parsed.console === undefined;
