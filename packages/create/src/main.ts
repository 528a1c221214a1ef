import { relative } from 'node:path';
import { createProject } from './createProject.js';
import { UsageError } from './errors.js';
import { parseArguments, USAGE } from './internal/args.js';
import { terminalAsker } from './internal/prompt.js';
import { needsAnswers, resolveOptions } from './internal/resolve.js';
import type { ProjectOptions } from './options.js';
import { ownVersion } from './paths.js';

/** The process the command runs in: arguments, folder, environment and streams. */
export interface CommandIO {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/** `CI` set to anything but `0` or `false`, as CI services set it. */
const inCi = (env: CommandIO['env']) => env.CI !== undefined && env.CI !== '' && !/^(0|false)$/i.test(env.CI);

/** What to do next, with the folder as the person would type it. */
function nextSteps(options: ProjectOptions, cwd: string, files: number): string {
  const folder = relative(cwd, options.directory) || '.';
  const store = { memory: 'in memory', sqlite: 'SQLite', postgres: 'PostgreSQL' }[options.store];
  const lines = [
    `Created ${options.name} in ${options.directory}: ${files} files, data ${store}, ${options.console ? 'with' : 'without'} the console.`,
    '',
    'Next:',
    ...(folder === '.' ? [] : [`  cd ${folder}`]),
    ...(options.store === 'postgres'
      ? ['  export DATABASE_URL=postgres://user@127.0.0.1:5432/tickets   # the database to use']
      : []),
    '  npm install && npm start     # serves MCP on http://127.0.0.1:3000/mcp and prints a token',
    '  npm test                     # type-checks, then runs the contract suite and the tests',
    '',
    'README.md says what each file does and where to go from here.',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Runs `npm create @gatehousejs`: reads the flags, asks for what they leave
 * out on a terminal (never when CI is set, `--yes` is given or stdin is not
 * a terminal), writes the project. Resolves with the exit status: 0 done,
 * 2 a usage error (printed with the usage), 1 any other failure.
 */
export async function main(io: CommandIO): Promise<number> {
  const print = (text: string) => io.stdout.write(text);
  let asker: ReturnType<typeof terminalAsker> | undefined;
  try {
    const parsed = parseArguments(io.argv);
    if (parsed.help || parsed.version) {
      print(`${parsed.help ? USAGE : ownVersion()}\n`);
      return 0;
    }
    const interactive = !parsed.yes && !inCi(io.env) && io.stdin.isTTY === true && needsAnswers(parsed);
    asker = interactive ? terminalAsker(io.stdin, io.stdout) : undefined;
    const options = await resolveOptions(parsed, { cwd: io.cwd, ask: asker?.ask });
    asker?.close();
    const files = createProject(options);
    print(nextSteps(options, io.cwd, files.length));
    return 0;
  } catch (error) {
    asker?.close();
    if (UsageError.is(error)) {
      io.stderr.write(`${error.message}\nSee the options with: npm create @gatehousejs -- --help\n`);
      return 2;
    }
    io.stderr.write(
      `Creating the project failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}
