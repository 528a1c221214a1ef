import { UsageError } from '../config.js';

/** A command line split into positional words and `--flag value` options. */
export interface ParsedArgs {
  readonly words: readonly string[];
  readonly flags: ReadonlyMap<string, string>;
}

/**
 * Splits `argv` into words and flags (`--name value` or `--name=value`).
 * Refuses flags outside `allowed` and flags without a value.
 */
export function parseArgs(argv: readonly string[], allowed: readonly string[]): ParsedArgs {
  const words: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const [name = '', inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (!allowed.includes(name)) {
      throw new UsageError(
        `Unknown option --${name}.${allowed.length ? ` Allowed: ${allowed.map((a) => `--${a}`).join(', ')}.` : ''}`,
      );
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || value.startsWith('--'))
      throw new UsageError(`--${name} needs a value.`);
    flags.set(name, value);
  }
  return { words, flags };
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
      `Expected ${names.map((n) => `<${n}>`).join(' ')}, got ${args.words.length} value(s).`,
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
