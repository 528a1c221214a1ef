import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseScanArgs, SCAN_USAGE, type ScanCommand, ScanUsageError } from './cliArgs.js';
import { ScanUnreachableError } from './discover.js';
import { readScanFixture } from './fixtureFile.js';
import { renderScanReport } from './report/render.js';
import { scanExitCode } from './report/summary.js';
import { type RunScanOptions, runScan } from './run.js';
import { findToolSources, isGatehouseProject } from './sources.js';
import type { ScanReport } from './types.js';

/** Where the CLI writes and what it reads; the real process by default, so tests can pass their own. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  write(text: string): void;
  error(text: string): void;
}

const processIo = (): CliIo => ({
  cwd: process.cwd(),
  env: process.env,
  write: (text) => void process.stdout.write(text),
  error: (text) => void process.stderr.write(text),
});

async function optionsOf(command: ScanCommand, io: CliIo): Promise<RunScanOptions> {
  const endpoint =
    'url' in command.target
      ? { transport: 'http' as const, url: command.target.url, credential: command.credential }
      : {
          transport: 'stdio' as const,
          command: command.target.command,
          args: command.target.args,
          cwd: io.cwd,
        };
  const fixture =
    command.fixture === undefined ? undefined : await readScanFixture(resolve(io.cwd, command.fixture));
  return {
    endpoint,
    credential: command.credentialKind,
    public: command.public,
    allowCalls: command.allowCalls,
    allowWrites: command.allowWrites,
    ...(fixture ? { fixture } : {}),
    ...(command.eras ? { eras: command.eras } : {}),
    ...(command.timeoutMs ? { timeoutMs: command.timeoutMs } : {}),
    ...(command.rateProbe ? { rateProbe: command.rateProbe } : {}),
  };
}

/** The report with the tools' source locations when the scan runs in (or is pointed at) a Gatehouse project. */
async function withSources(report: ScanReport, command: ScanCommand, io: CliIo): Promise<ScanReport> {
  const root = resolve(io.cwd, command.source ?? '.');
  if (command.source === undefined && !(await isGatehouseProject(root))) return report;
  const tools = await findToolSources(root, report.tools);
  return { ...report, sources: tools, sourceRoot: root };
}

/**
 * Runs `gatehouse <argv>` and answers its exit code: 0 when no check failed,
 * 1 when one did, 2 for a usage error (printed with the usage), 3 when the
 * server could not be reached. Only `scan` is a command.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (
    name === undefined ||
    name === '-h' ||
    name === '--help' ||
    rest.includes('--help') ||
    rest.includes('-h')
  ) {
    io.write(`${SCAN_USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  try {
    if (name !== 'scan')
      throw new ScanUsageError(`unknown command ${JSON.stringify(name)}; the command is scan`);
    const command = parseScanArgs(rest, io.env);
    const report = await withSources(await runScan(await optionsOf(command, io)), command, io);
    const text = renderScanReport(report, command.format);
    if (command.output === undefined) io.write(text);
    else await writeFile(resolve(io.cwd, command.output), text);
    return scanExitCode(report);
  } catch (error) {
    if (ScanUsageError.is(error)) {
      io.error(`gatehouse scan: ${error.message}\n\n${SCAN_USAGE}\n`);
      return 2;
    }
    if (ScanUnreachableError.is(error)) {
      io.error(`gatehouse scan: ${error.message}\n`);
      return 3;
    }
    throw error;
  }
}
