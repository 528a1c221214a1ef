/**
 * A PostgreSQL 15 cluster of a test's own: its data and socket folders in a
 * fresh temporary folder, its own loopback port, trust authentication. A
 * test may stop it, start it again and terminate its connections without
 * touching the shared server other tests use at the same moment. As root the
 * server binaries run as the `postgres` user (initdb refuses root).
 */
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, chownSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freeLoopbackPorts } from './freePorts.js';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 keeps `initdb`, `pg_ctl` and `postgres`. */
const BIN = '/usr/lib/postgresql/15/bin';
const RUNUSER = '/usr/sbin/runuser';
const OWNER = 'postgres';

/** How `stop` ends the server: `fast` rolls back open transactions, `immediate` is a crash. */
export type StopMode = 'fast' | 'immediate';

/** Which connections `terminateConnections` ends (all given fields must match); default every client. */
export interface ConnectionFilter {
  /** `application_name` of the connections (`gatehouse` for createPostgresPool's default). */
  readonly applicationName?: string;
  /** The database they are connected to. */
  readonly database?: string;
}

/** A running throwaway cluster; `dispose()` (or `await using`) stops it and removes its folder. */
export interface ThrowawayPostgres extends AsyncDisposable {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  /** The temporary folder holding its data, socket and server log; removed by `dispose()`. */
  readonly folder: string;
  /** Whether the server runs (as far as `start` and `stop` know). */
  readonly running: boolean;
  /** Stops the server (`pg_ctl stop -w`); does nothing when it is stopped. */
  stop(mode?: StopMode): Promise<void>;
  /** Starts the server and waits until it accepts connections; does nothing when it runs. */
  start(): Promise<void>;
  /** `pg_terminate_backend` of every other client backend matching `filter`; how many were ended. */
  terminateConnections(filter?: ConnectionFilter): Promise<number>;
  /** Stops the server at once and removes its folder; safe to call twice. */
  dispose(): Promise<void>;
}

/** Why a throwaway cluster cannot run on this machine, or undefined when it can. */
function unavailableReason(): string | undefined {
  for (const tool of ['initdb', 'pg_ctl', 'postgres']) {
    try {
      accessSync(join(BIN, tool), constants.X_OK);
    } catch {
      return `${join(BIN, tool)} is missing`;
    }
  }
  if (process.getuid?.() !== 0) return undefined;
  try {
    accessSync(RUNUSER, constants.X_OK);
  } catch {
    return `running as root without ${RUNUSER}`;
  }
  try {
    execFileSync('id', ['-u', OWNER], { stdio: 'ignore' });
  } catch {
    return `running as root and there is no ${OWNER} user`;
  }
  return undefined;
}

let reason: { readonly text: string | undefined } | undefined;

/** The reason once per process, printed when there is one. */
function checkedReason(): string | undefined {
  if (!reason) {
    reason = { text: unavailableReason() };
    if (reason.text) console.warn(`Skipping the throwaway PostgreSQL tests: ${reason.text}.`);
  }
  return reason.text;
}

/**
 * Whether {@link startThrowawayPostgres} can run here (PostgreSQL 15 binaries
 * present; as root, `runuser` and a `postgres` user); prints why not.
 *
 * @example
 * describe.skipIf(!throwawayPostgresAvailable())('when the database stops', () => { … });
 */
export function throwawayPostgresAvailable(): boolean {
  return checkedReason() === undefined;
}

/** Runs a server binary, as `postgres` when this process is root. */
async function binary(tool: string, args: readonly string[]): Promise<string> {
  const [file, argv] =
    process.getuid?.() === 0
      ? [RUNUSER, ['-u', OWNER, '--', join(BIN, tool), ...args]]
      : [join(BIN, tool), [...args]];
  const { stdout } = await run(file, argv, { timeout: 60_000 });
  return stdout;
}

/** Hands `path` to the user the server runs as (when this process is root). */
function own(path: string): void {
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync('id', ['-u', OWNER]).toString());
  const gid = Number(execFileSync('id', ['-g', OWNER]).toString());
  chownSync(path, uid, gid);
}

/** A fresh folder, with a folder for the socket, owned by the user the server runs as. */
function ownedFolder(): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
  mkdirSync(join(root, 'socket'));
  own(root);
  own(join(root, 'socket'));
  return root;
}

/** The settings of the cluster: loopback only, its own port and socket, no fsync (tests only). */
function settings(root: string, port: number): string {
  return [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${join(root, 'socket')}'`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'max_connections = 200',
    'shared_buffers = 32MB',
    '',
  ].join('\n');
}

/**
 * Creates and starts a throwaway cluster (about a second), or answers
 * undefined, printing why, when it cannot run here. The caller disposes it.
 *
 * @example
 * await using postgres = await startThrowawayPostgres();
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres | undefined> {
  if (checkedReason() !== undefined) return undefined;
  const root = ownedFolder();
  const data = join(root, 'data');
  const log = join(root, 'server.log');
  try {
    await binary('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  let port = 0;
  let running = false;
  let disposed = false;
  /** One operation at a time, so a stop and a start never interleave. */
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const ctl = (...args: string[]) => binary('pg_ctl', ['-D', data, '-w', '-t', '60', ...args]);
  const serverRuns = async () => {
    try {
      await binary('pg_ctl', ['-D', data, 'status']);
      return true;
    } catch {
      return false;
    }
  };
  const startOnce = async () => {
    if (running || (await serverRuns())) {
      running = true;
      return;
    }
    await ctl('-l', log, 'start');
    running = true;
  };
  const stopOnce = async (mode: StopMode) => {
    if (!running && !(await serverRuns())) return;
    try {
      await ctl('-m', mode, 'stop');
    } catch (error) {
      if (await serverRuns()) throw error;
    }
    running = false;
  };
  // Another process may take the port between choosing and binding it: a few tries.
  for (let attempt = 0; ; attempt++) {
    port = (await freeLoopbackPorts(1))[0] as number;
    writeFileSync(join(data, 'postgresql.auto.conf'), settings(root, port));
    own(join(data, 'postgresql.auto.conf'));
    try {
      await startOnce();
      break;
    } catch (error) {
      if (attempt < 2) continue;
      rmSync(root, { recursive: true, force: true });
      throw error;
    }
  }
  // A test worker that dies must not leave a server behind.
  const onExit = () => {
    try {
      execFileSync(
        process.getuid?.() === 0 ? RUNUSER : join(BIN, 'pg_ctl'),
        process.getuid?.() === 0
          ? ['-u', OWNER, '--', join(BIN, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']
          : ['-D', data, '-m', 'immediate', 'stop'],
        { stdio: 'ignore' },
      );
    } catch {}
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const dispose = () =>
    serial(async () => {
      if (disposed) return;
      disposed = true;
      process.removeListener('exit', onExit);
      await stopOnce('immediate').catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    });
  return {
    url,
    port,
    folder: root,
    get running() {
      return running;
    },
    stop: (mode = 'fast') => serial(() => (disposed ? Promise.resolve() : stopOnce(mode))),
    start: () =>
      serial(() => (disposed ? Promise.reject(new Error('the cluster was disposed')) : startOnce())),
    terminateConnections: (filter = {}) => terminate(url, filter),
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

/** Ends the matching client backends other than its own; how many. */
async function terminate(url: string, filter: ConnectionFilter): Promise<number> {
  const client = new pg.Client({ connectionString: url, application_name: 'throwaway-admin' });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
         WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'
           AND ($1::text IS NULL OR application_name = $1)
           AND ($2::text IS NULL OR datname = $2)
       ) ended WHERE ended`,
      [filter.applicationName ?? null, filter.database ?? null],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}
