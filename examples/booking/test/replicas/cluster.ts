/**
 * Several booking server processes (the real entry point, bundled) on one
 * database: PostgreSQL reached through a TCP proxy the test owns (or
 * directly, when the test owns the server itself), or one SQLite file.
 * Requests are spread over the replicas by the tests; tokens are minted and
 * switches flipped with the booking CLI, as an operator would.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundleChild, CHILD_ENV } from '../../../../test/childBundle.js';
import { RIGHTS } from '../../src/domain/model.js';
import { startTcpProxy, type TcpProxy } from './tcpProxy.js';

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const EXTERNAL = ['better-sqlite3', 'pino', 'pg'];

/** One server process. */
export interface Replica {
  readonly url: URL;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Where the replicas keep their data. */
export type Store =
  | { readonly engine: 'postgres'; readonly url: string }
  | { readonly engine: 'sqlite'; readonly file: string };

export interface Cluster {
  readonly replicas: readonly Replica[];
  /** Between the replicas and PostgreSQL (absent on SQLite and with `direct`). */
  readonly proxy: TcpProxy | undefined;
  /** The replica for the `i`-th request: round robin over the live ones. */
  at(i: number): Replica;
  /** Runs a booking CLI command on the database (directly, not through the proxy); its stdout. */
  cli(...args: string[]): Promise<string>;
  /** Mints an MCP token with every right for the demo owner. */
  mint(): Promise<string>;
  /** Starts one more replica (e.g. after one was killed). */
  add(): Promise<Replica>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  readonly count: number;
  readonly store: Store;
  /** Extra environment of the server processes (rate limits, shutdown deadlines). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * PostgreSQL at `store.url` itself, without a proxy between (default false):
   * for a server the test may stop, start and cut connections of on its own.
   */
  readonly direct?: boolean;
}

let bundles: { main: string; cli: string; dir: string } | undefined;

/** The server and the CLI bundled once per test file. */
function bundled(): { main: string; cli: string; dir: string } {
  if (!bundles) {
    const dir = mkdtempSync(join(tmpdir(), 'booking-replicas-'));
    bundles = {
      dir,
      main: bundleChild(join(here, '../../src/main.ts'), join(dir, 'main.cjs'), EXTERNAL),
      cli: bundleChild(join(here, '../../src/cli.ts'), join(dir, 'cli.cjs'), EXTERNAL),
    };
  }
  return bundles;
}

/** The environment naming the database, directly or through the proxy. */
function databaseEnv(store: Store, proxy: TcpProxy | undefined): Record<string, string> {
  if (store.engine === 'sqlite') return { BOOKING_DB: store.file, DATABASE_URL: '' };
  const url = new URL(store.url);
  if (proxy) {
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
  }
  return { DATABASE_URL: url.toString() };
}

function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, [bundled().main], {
    env: { ...process.env, ...CHILD_ENV, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('close', (code) => reject(new Error(`a replica exited (${code}) before its banner: ${err}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /MCP URL\s+(\S+)/.exec(out)?.[1];
      if (!url || !out.includes('Press Ctrl+C')) return;
      resolve({
        url: new URL(url),
        child,
        exited,
        stderr: () => err,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
  });
}

/**
 * Starts `count` replicas on `store`: the first alone (it migrates and
 * seeds), the rest at once. PostgreSQL is reached through a fresh proxy,
 * or at `store.url` with `direct`.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { store } = options;
  const proxy =
    store.engine === 'postgres' && !options.direct
      ? await startTcpProxy({
          host: new URL(store.url).hostname,
          port: Number(new URL(store.url).port || 5432),
        })
      : undefined;
  const env = { ...databaseEnv(store, proxy), ...options.env };
  const replicas: Replica[] = [await startReplica(env)];
  replicas.push(...(await Promise.all(Array.from({ length: options.count - 1 }, () => startReplica(env)))));
  const cli = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [bundled().cli, ...args], {
      env: { ...process.env, ...CHILD_ENV, LOG_LEVEL: 'silent', ...databaseEnv(store, undefined) },
    });
    return stdout;
  };
  return {
    replicas,
    proxy,
    at: (i) => {
      const live = replicas.filter(
        (replica) => replica.child.exitCode === null && replica.child.signalCode === null,
      );
      return live[i % live.length]!;
    },
    cli,
    async mint() {
      const rights = RIGHTS.join(',');
      const out = await cli(
        'token',
        'create',
        '--workspace',
        'ws_acme',
        '--person',
        'p_olivia',
        '--rights',
        rights,
      );
      const token = /token {4}(\S+)/.exec(out)?.[1];
      if (!token) throw new Error(`the CLI printed no token: ${out}`);
      return token;
    },
    async add() {
      const replica = await startReplica(env);
      replicas.push(replica);
      return replica;
    },
    async close() {
      await Promise.all(replicas.map((replica) => replica.stop('SIGKILL')));
      await proxy?.close();
    },
  };
}

/** Removes the bundles (call once in afterAll). */
export function removeBundles(): void {
  if (bundles) rmSync(bundles.dir, { recursive: true, force: true });
  bundles = undefined;
}
