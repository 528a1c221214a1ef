import { type Logger, pino } from 'pino';
import { createBookingApp } from '../app.js';
import { UsageError } from '../config.js';
import { parseArgs } from './args.js';
import { asUsageError, type CliIo, COMMANDS } from './commands.js';

/** Options of {@link runCli}. */
export interface CliOptions {
  /** The database file the command acts on. */
  readonly file: string;
  readonly io: CliIo;
  readonly clock?: () => Date;
  readonly logger?: Logger;
}

/** The usage text: every command on one line. */
export function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  npm run booking -- ${c.usage}`);
  return `Usage:\n${lines.join('\n')}\n  npm run booking -- help\n`;
}

/**
 * Runs one CLI command against the database file and returns the exit code:
 * 0 done, 2 bad input (an unknown command, workspace, person, right or
 * option; a right the person does not hold), 1 an unexpected failure. Errors
 * are one `Error:` line on stderr, never a stack trace. Changes are audited
 * with channel `cli`.
 */
export async function runCli(argv: readonly string[], options: CliOptions): Promise<number> {
  const { io } = options;
  const [first = '', second = ''] = argv;
  if (first === 'help' || first === '--help' || first === '-h') {
    io.out(usage());
    return 0;
  }
  const key = COMMANDS[first] ? first : `${first} ${second}`;
  const command = COMMANDS[key];
  if (!command) {
    io.err(
      `Error: ${first ? `unknown command "${argv.slice(0, 2).join(' ')}"` : 'no command given'}.\n${usage()}`,
    );
    return 2;
  }
  let app: ReturnType<typeof createBookingApp> | undefined;
  try {
    const args = parseArgs(argv.slice(key.split(' ').length), command.options);
    app = createBookingApp({
      file: options.file,
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
    io.err(`Error: the command failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    app?.close();
  }
}
