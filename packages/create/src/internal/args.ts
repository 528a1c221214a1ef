import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import { isStore, STORES, type Store } from '../options.js';

/** What the command line says; anything left out is asked or defaulted. */
export interface ParsedArguments {
  readonly directory?: string;
  readonly name?: string;
  readonly store?: Store;
  readonly console?: boolean;
  /** Take the defaults for anything not given, asking nothing. */
  readonly yes: boolean;
  readonly help: boolean;
  readonly version: boolean;
}

const OPTIONS = {
  name: { type: 'string' },
  store: { type: 'string' },
  console: { type: 'boolean' },
  'no-console': { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** The sentence of a parseArgs error, without Node's advice to use `--` (which the command takes no use of). */
function parseProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]?.replace(/\s*To specify a positional argument.*$/, '') ?? message;
}

/**
 * Reads `[directory] [--name <name>] [--store memory|sqlite|postgres]
 * [--console | --no-console] [--yes] [--help] [--version]`. Refuses an
 * unknown flag, a flag without its value, a store outside the list, both
 * `--console` and `--no-console`, and more than one directory (UsageError).
 */
export function parseArguments(argv: readonly string[]): ParsedArguments {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseProblem(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    throw new UsageError(`Give one project folder, not ${positionals.length} (${positionals.join(', ')}).`);
  if (values.console && values['no-console'])
    throw new UsageError('Give --console or --no-console, not both.');
  if (values.store !== undefined && !isStore(values.store))
    throw new UsageError(`--store must be one of ${STORES.join(', ')} (got "${values.store}").`);
  const console = values.console ? true : values['no-console'] ? false : undefined;
  return {
    ...(positionals[0] === undefined ? {} : { directory: positionals[0] }),
    ...(values.name === undefined ? {} : { name: values.name }),
    ...(values.store === undefined ? {} : { store: values.store as Store }),
    ...(console === undefined ? {} : { console }),
    yes: values.yes === true,
    help: values.help === true,
    version: values.version === true,
  };
}

/** The usage text `--help` prints and a usage error ends with. */
export const USAGE = `Usage: npm create @gatehousejs [folder] -- [options]
       npx @gatehousejs/create [folder] [options]

Creates a Gatehouse MCP server: one tool per effect class, its stores, the
contract suite and a surface lockfile, ready for npm install && npm start.

Options:
  --name <name>        npm package name (default: the folder's name)
  --store <store>      memory, sqlite or postgres (default: sqlite)
  --console            include the console: a person approves delete_ticket
  --no-console         leave the console out (the default)
  -y, --yes            take the defaults for anything not given, ask nothing
  -h, --help           show this text
  -v, --version        show the version

Nothing is asked when CI is set, when standard input is not a terminal, or
when the folder, --store and --console or --no-console are all given.`;
