import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CommandIO, main } from '../src/main.js';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'create-main-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

/**
 * A terminal: each question written to it is answered with the next of
 * `answers` (the input ends when they run out); without `answers`, reading
 * the input is recorded as an error.
 */
function io(
  argv: string[],
  options: { env?: Record<string, string>; answers?: string[]; tty?: boolean } = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = Object.assign(new PassThrough(), { isTTY: options.tty ?? false });
  const answers = options.answers ? [...options.answers] : undefined;
  const sink = (into: string[], answering: boolean) =>
    new Writable({
      write(chunk, _encoding, done) {
        into.push(String(chunk));
        if (answering && answers && String(chunk).endsWith(': ')) {
          const answer = answers.shift();
          if (answer === undefined) stdin.end();
          else stdin.write(`${answer}\n`);
        }
        done();
      },
    });
  if (!answers) stdin.on('resume', () => err.push('stdin was read'));
  const streams: CommandIO = {
    argv,
    cwd,
    env: options.env ?? {},
    stdin,
    stdout: sink(out, true),
    stderr: sink(err, false),
  };
  return { streams, out: () => out.join(''), err: () => err.join('') };
}

describe('main', () => {
  it('creates the project the flags describe and prints the next steps', async () => {
    const run = io(['desk', '--store', 'postgres', '--console']);
    expect(await main(run.streams)).toBe(0);
    expect(run.err()).toBe('');
    expect(run.out()).toContain(`Created desk in ${join(cwd, 'desk')}`);
    expect(run.out()).toContain('  cd desk\n');
    expect(run.out()).toContain('export DATABASE_URL=');
    expect(run.out()).toContain('npm install && npm start');
    const manifest = JSON.parse(readFileSync(join(cwd, 'desk', 'package.json'), 'utf8'));
    expect(manifest.dependencies).toHaveProperty('pg');
    expect(manifest.dependencies).toHaveProperty('@gatehousejs/console');
  });

  it('answers a bad flag with status 2 and the reason, writing nothing', async () => {
    const run = io(['desk', '--store', 'mongo']);
    expect(await main(run.streams)).toBe(2);
    expect(run.err()).toContain('--store must be one of memory, sqlite, postgres (got "mongo").');
    expect(run.err()).toContain('--help');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('answers a folder that is not empty with status 2, leaving it as it was', async () => {
    mkdirSync(join(cwd, 'desk'));
    writeFileSync(join(cwd, 'desk', 'keep.txt'), 'mine');
    const run = io(['desk', '--store', 'memory', '--no-console']);
    expect(await main(run.streams)).toBe(2);
    expect(run.err()).toContain('is not empty (keep.txt)');
    expect(readdirSync(join(cwd, 'desk'))).toEqual(['keep.txt']);
  });

  it('asks nothing under CI, even on a terminal, and takes the defaults', async () => {
    const run = io([], { env: { CI: 'true' }, tty: true });
    expect(await main(run.streams)).toBe(0);
    expect(run.err()).toBe('');
    expect(existsSync(join(cwd, 'gatehouse-server', 'src', 'db', 'sqlite.ts'))).toBe(true);
    expect(existsSync(join(cwd, 'gatehouse-server', 'src', 'console.ts'))).toBe(false);
  });

  it('asks nothing when standard input is not a terminal', async () => {
    const run = io(['desk']);
    expect(await main(run.streams)).toBe(0);
    expect(run.out()).not.toContain('Store:');
  });

  it('asks on a terminal for what the flags leave out', async () => {
    const run = io([], { tty: true, answers: ['notes-desk', 'memory', 'yes'] });
    expect(await main(run.streams)).toBe(0);
    expect(run.out()).toContain('Project folder (gatehouse-server): ');
    expect(existsSync(join(cwd, 'notes-desk', 'src', 'db', 'memory.ts'))).toBe(true);
    expect(existsSync(join(cwd, 'notes-desk', 'src', 'console.ts'))).toBe(true);
  });

  it('ends with status 2 when the input ends before an answer', async () => {
    const run = io([], { tty: true, answers: [] });
    expect(await main(run.streams)).toBe(2);
    expect(run.err()).toContain('Cancelled');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('prints the usage and the version', async () => {
    const help = io(['--help']);
    expect(await main(help.streams)).toBe(0);
    expect(help.out()).toContain('--store <store>      memory, sqlite or postgres');
    const version = io(['--version']);
    expect(await main(version.streams)).toBe(0);
    expect(version.out()).toBe(
      `${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`,
    );
    expect(readdirSync(cwd)).toEqual([]);
  });
});
