import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../config.js';

/** A command line split into positional words and `--flag value` options. */
export interface ParsedArgs {
  readonly words: readonly string[];
  readonly flags: ReadonlyMap<string, string>;
  /** `--help` or `-h` was given: show the command's usage instead of running it. */
  readonly help: boolean;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

const HELP: Options = { help: { type: 'boolean', short: 'h' } };

const listed = (allowed: readonly string[]) =>
  allowed.length
    ? ` Allowed: ${allowed.map((a) => `--${a}`).join(', ')}.`
    : ' This command takes no options.';

/** The usage error for one option token, or undefined when it is well formed. */
function problemWith(token: Token & { kind: 'option' }, allowed: readonly string[], seen: Set<string>) {
  const { name, rawName, value, inlineValue } = token;
  if (name === 'help') {
    return value === undefined ? undefined : new UsageError(`${rawName} takes no value.`);
  }
  if (!allowed.includes(name)) return new UsageError(`Unknown option ${rawName}.${listed(allowed)}`);
  if (value === undefined || value === '' || (!inlineValue && value.startsWith('-'))) {
    return new UsageError(`--${name} needs a value (--${name} <value> or --${name}=<value>).`);
  }
  if (seen.has(name)) return new UsageError(`--${name} is given more than once.`);
  seen.add(name);
  return undefined;
}

/**
 * Splits `argv` with node:util `parseArgs` into words and flags
 * (`--name value` or `--name=value`; `--` ends the options). Refuses, as a
 * {@link UsageError} that names the flag: flags outside `allowed`, a flag
 * without a value (missing, empty, or followed by another flag), a flag
 * given twice. `--help`/`-h` is always accepted.
 */
export function parseCommandArgs(argv: readonly string[], allowed: readonly string[]): ParsedArgs {
  const options: Options = { ...HELP };
  for (const name of allowed) options[name] = { type: 'string' };
  // a lenient pass first, so each refusal names the flag in our words, not the parser's
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const problem = problemWith(token, allowed, seen);
    if (problem) throw problem;
  }
  const { values, positionals } = parseArgs({
    args: [...argv],
    options,
    strict: true,
    allowPositionals: true,
  });
  const flags = new Map<string, string>();
  for (const name of allowed) {
    const value = values[name];
    if (typeof value === 'string') flags.set(name, value);
  }
  return { words: positionals, flags, help: values.help === true };
}

/** A required flag's value. */
export function required(args: ParsedArgs, name: string): string {
  const value = args.flags.get(name);
  if (value === undefined) throw new UsageError(`--${name} is required.`);
  return value;
}

/** Exactly `count` positional words after the command, named for the message. */
export function positional(args: ParsedArgs, names: readonly string[]): string[] {
  if (args.words.length !== names.length) {
    throw new UsageError(
      `Expected ${names.length ? names.map((n) => `<${n}>`).join(' ') : 'no values'}, got ${args.words.length} value(s)${args.words.length ? `: ${args.words.join(' ')}` : ''}.`,
    );
  }
  return [...args.words];
}

/** `on` or `off`. */
export function onOff(word: string | undefined): boolean {
  if (word === 'on') return true;
  if (word === 'off') return false;
  throw new UsageError(`Expected on or off, not ${JSON.stringify(word ?? '')}.`);
}
