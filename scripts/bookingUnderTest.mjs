/**
 * The booking example's MCP server, started for an outside checker: a fresh
 * SQLite file in a temporary directory, seeded and given one MCP token minted
 * with the booking CLI, then `examples/booking/dist/main.js` on a free
 * loopback port. Also resolves pinned tools that need Node 22 through npx.
 * Builds what the example needs and is out of date first (scripts/buildCurrent.mjs).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCurrent } from './buildCurrent.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'examples/booking/dist');
/** The Node line the MCP conformance suite and the Inspector need. */
export const NODE_22 = 'node@22';
/** Every right of the seeded owner, so every booking tool is listed. */
const OWNER_RIGHTS = [
  'customers.read',
  'bookings.read',
  'bookings.write',
  'bookings.delete',
  'customers.notify',
  'technicians.page',
  'alerts.manage',
];

/**
 * Installs (or reuses from the npx cache) `node@22` and `pkg`, and returns the
 * Node 22 binary and the absolute path of `bin`, so each run spawns them
 * directly instead of paying for npx every time.
 */
export function resolveNode22Tool(pkg, bin) {
  const out = execFileSync(
    'npx',
    ['-y', '-p', NODE_22, '-p', pkg, '-c', `node -e "console.log(process.execPath)" && command -v ${bin}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const [node, binPath] = out.trim().split('\n').slice(-2);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith('v22.')) throw new Error(`npx gave Node ${version}, not 22.`);
  return { node, bin: binPath, version };
}

/** A free TCP port on the loopback address. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function cli(env, args) {
  return execFileSync(process.execPath, [join(DIST, 'cli.js'), ...args], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Mints a token for the seeded owner with the booking CLI and reads it from its `token` line. */
function mintToken(env, label) {
  cli(env, ['seed']);
  const out = cli(env, [
    'token',
    'create',
    '--workspace',
    'ws_acme',
    '--person',
    'p_olivia',
    '--rights',
    OWNER_RIGHTS.join(','),
    '--label',
    label,
  ]);
  const token = /^token\s+(\S+)\s*$/m.exec(out)?.[1];
  if (!token) throw new Error(`The booking CLI printed no token line:\n${out}`);
  return token;
}

async function waitUntilServing(url, child, output) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(url, { method: 'POST', body: '{}' });
      if (response.status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`The booking server did not start at ${url}:\n${output.join('')}`);
}

/**
 * Starts the booking server and returns its MCP URL, a bearer token,
 * `stop()`, what it printed so far (`output`, its banner included) and
 * `cli(args)`, the booking CLI on the same database. The child is also killed when this process exits, is
 * interrupted, or throws, so no server outlives the check. `publicUrl: true`
 * sets `PUBLIC_URL` to the server's own origin, so its 401 challenges name
 * the OAuth protected-resource metadata.
 */
export async function startBooking({ label, publicUrl = false }) {
  buildCurrent(['@gatehousejs/example-booking'], (line) => process.stderr.write(`${line}\n`));
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-booking-'));
  const port = await freePort();
  const env = { ...process.env, BOOKING_DB: join(dir, 'booking.db'), PORT: String(port) };
  if (publicUrl) env.PUBLIC_URL = `http://127.0.0.1:${port}`;
  delete env.INIT_CWD;
  delete env.DATABASE_URL; // the fresh SQLite file above, even where DATABASE_URL names a server
  let token;
  try {
    token = mintToken(env, label);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const output = [];
  const child = spawn(process.execPath, [join(DIST, 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk) => output.push(String(chunk)));
  child.stderr.on('data', (chunk) => output.push(String(chunk)));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      kill();
      process.exit(130);
    });
  }
  const url = `http://127.0.0.1:${port}/mcp`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(kill, 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(url, child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, token, stop, output, cli: (args) => cli(env, args) };
}
