import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, type ScanOutcome, type ScanReport, type Verdict } from '../../src/index.js';

/** A server script of this folder, by file name. */
export const serverScript = (name: string) => fileURLToPath(new URL(`./servers/${name}`, import.meta.url));

/** Runs `gatehouse scan …` in this process with `--format json`; answers the exit code, the report and standard error. */
export async function scanJson(args: readonly string[], cwd = process.cwd()) {
  let out = '';
  let err = '';
  const code = await runCli(['scan', ...args, '--format', 'json'], {
    cwd,
    env: {},
    write: (text) => {
      out += text;
    },
    error: (text) => {
      err += text;
    },
  });
  const report = out === '' ? undefined : (JSON.parse(out) as ScanReport);
  return { code, report, err };
}

/** A fixture file in a fresh temporary folder; removed with `using`. */
export function fixtureFile(tools: Record<string, { arguments: Record<string, unknown>; writes?: boolean }>) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-scan-'));
  const path = join(dir, 'fixture.json');
  writeFileSync(path, JSON.stringify({ tools }));
  return { path, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The verdict of `check` (for `tool`, and `era` when given); fails the test when there is not exactly one. */
export function verdictOf(
  report: ScanReport | undefined,
  check: string,
  tool?: string,
  era?: string,
): ScanOutcome {
  const found = (report?.outcomes ?? []).filter(
    (o) => o.check === check && o.tool === tool && (era === undefined || o.era === era),
  );
  if (found.length !== 1)
    throw new Error(`expected one ${check} ${tool ?? ''} ${era ?? ''} outcome, got ${found.length}`);
  return found[0] as ScanOutcome;
}

/** Every outcome of `check` has `verdict`. */
export const allOf = (report: ScanReport | undefined, check: string): Verdict[] =>
  (report?.outcomes ?? []).filter((o) => o.check === check).map((o) => o.verdict);

/** A started server process whose first stdout line starting with `http` is its URL; stopped on dispose. */
export async function startServer(
  command: string,
  args: readonly string[],
): Promise<{ url: string } & AsyncDisposable> {
  const child = spawn(command, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no URL within 20 s from ${args.join(' ')}:\n${output}`)),
      20_000,
    );
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.startsWith('http'));
      if (line) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    async [Symbol.asyncDispose]() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
