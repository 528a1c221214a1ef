import { type Logger, pino } from 'pino';
import { type BookingApp, createBookingApp } from '../app.js';
import { UsageError } from '../config.js';
import type { DatabaseConfig } from '../db/open.js';
import { parseCommandArgs } from './args.js';
import { asUsageError, type CliIo, COMMANDS, type Command } from './commands.js';

/** How the CLI runs, whatever the database. */
export interface CliSettings {
  readonly io: CliIo;
  readonly clock?: () => Date;
  readonly logger?: Logger;
}

/** Options of {@link runCli}: the database the command acts on (a SQLite file or a PostgreSQL URL), and its settings. */
export type CliOptions = DatabaseConfig & CliSettings;

/** The usage text: every command on one line. */
export function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  npm run booking -- ${c.usage}`);
  return `Usage:\n${lines.join('\n')}\n  npm run booking -- help\nAdd --help to a command for its usage alone.\n`;
}

const HELP_WORDS = new Set(['help', '--help', '-h']);

/** The command `argv` names (one word, or two), and how many words that took. */
function commandOf(argv: readonly string[]): { command: Command; words: number } | undefined {
  const [first = '', second = ''] = argv;
  if (COMMANDS[first]) return { command: COMMANDS[first], words: 1 };
  const command = COMMANDS[`${first} ${second}`];
  return command ? { command, words: 2 } : undefined;
}

/** The error for a command line that names no command: the words given, then the usage. */
function unknownCommand(argv: readonly string[]): string {
  const words = argv.slice(0, 2).filter((word) => !word.startsWith('-'));
  const what = words.length ? `unknown command "${words.join(' ')}"` : 'no command given';
  return `Error: ${what}.\n${usage()}`;
}

/**
 * Runs one CLI command against the database file and returns the exit code:
 * 0 done (or help shown), 2 bad input (an unknown command, flag, workspace,
 * person, right or toolset; a flag without its value; a right the person
 * does not hold), 1 an unexpected failure. Arguments are parsed by node:util
 * `parseArgs`. Errors are one `Error:` line plus the usage on stderr, never
 * a stack trace. Changes are audited with channel `cli`.
 */
export async function runCli(argv: readonly string[], options: CliOptions): Promise<number> {
  const { io } = options;
  if (HELP_WORDS.has(argv[0] ?? '')) {
    io.out(usage());
    return 0;
  }
  const found = commandOf(argv);
  if (!found) {
    io.err(unknownCommand(argv));
    return 2;
  }
  const { command } = found;
  let app: BookingApp | undefined;
  try {
    const args = parseCommandArgs(argv.slice(found.words), command.options);
    if (args.help) {
      io.out(`Usage: npm run booking -- ${command.usage}\n`);
      return 0;
    }
    const database: DatabaseConfig =
      'databaseUrl' in options ? { databaseUrl: options.databaseUrl } : { file: options.file };
    app = await createBookingApp({
      ...database,
      seed: false,
      logger: options.logger ?? pino({ level: 'warn' }, pino.destination({ dest: 2, sync: true })),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    await command.run(app, args, io);
    return 0;
  } catch (caught) {
    const error = asUsageError(caught);
    if (error instanceof UsageError) {
      io.err(`Error: ${error.message}\nUsage: npm run booking -- ${command.usage}\n`);
      return 2;
    }
    io.err(`Error: the command failed (${error instanceof Error ? error.name : typeof error}).\n`);
    return 1;
  } finally {
    await app?.close();
  }
}
