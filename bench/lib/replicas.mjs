// Write throughput and latency of the booking server (the built example, as
// separate processes) on SQLite, on PostgreSQL with one process, and on
// PostgreSQL with three replicas behind a round-robin client. Every request
// is a distinct `create_booking` through the whole pipeline (rate, replay
// claim, duplicate check, unit of work with the booking, audit row and
// replay record). Rounds are interleaved so machine noise is shared out.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median, quantile } from './stats.mjs';

export const run = promisify(execFile);
const BOOKING = fileURLToPath(new URL('../../examples/booking/dist/', import.meta.url));

/** The built booking example of a checkout: its server and its CLI (this build's by default). */
export function bookingBuild(dir = join(BOOKING, '../../..')) {
  const dist = join(dir, 'examples/booking/dist');
  return { main: join(dist, 'main.js'), cli: join(dist, 'cli.js') };
}
const THIS_BUILD = bookingBuild();
const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const LIMITS = JSON.stringify({
  read: { capacity: 1_000_000, refillPerSecond: 1_000_000 },
  write: { capacity: 1_000_000, refillPerSecond: 1_000_000 },
});
export const MODERN = '2026-07-28';

/** Starts one booking server process (of `build`, this one by default) and resolves with its MCP URL. */
export function startServer(env, build = THIS_BUILD) {
  const child = spawn(process.execPath, [build.main], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', BOOKING_RATE_LIMITS: LIMITS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('close', (code) => reject(new Error(`booking server exited (${code}): ${err.slice(0, 300)}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /MCP URL\s+(\S+)/.exec(out)?.[1];
      if (url && out.includes('Press Ctrl+C')) resolve({ url, child });
    });
  });
}

export async function stopServer(server) {
  const gone = new Promise((resolve) => server.child.once('close', resolve));
  server.child.kill('SIGTERM');
  await gone;
}

export async function mint(env, build = THIS_BUILD) {
  const { stdout } = await run(
    process.execPath,
    [
      build.cli,
      'token',
      'create',
      '--workspace',
      'ws_acme',
      '--person',
      'p_olivia',
      '--rights',
      'bookings.read,bookings.write,customers.read',
    ],
    { env: { ...process.env, LOG_LEVEL: 'silent', ...env } },
  );
  const token = /token {4}(\S+)/.exec(stdout)?.[1];
  if (!token) throw new Error(`the booking CLI printed no token: ${stdout.slice(0, 200)}`);
  return token;
}

/** A fresh PostgreSQL database for one contender; `drop()` removes it. */
export async function postgresDatabase() {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  const name = `gatehouse_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Starts `count` servers on one database (the first alone: it migrates and seeds). */
async function startContender(label, env, count, cleanup) {
  const servers = [await startServer(env)];
  servers.push(...(await Promise.all(Array.from({ length: count - 1 }, () => startServer(env)))));
  const token = await mint(env);
  return {
    label,
    urls: servers.map((server) => server.url),
    token,
    async close() {
      await Promise.all(servers.map(stopServer));
      await cleanup();
    },
  };
}

/** A stateless 2026-07-28 `tools/call` body: the request carries the client's facts in `_meta`. */
export function toolCallBody(id, name, args) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'gatehouse-bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** The headers of a 2026-07-28 `tools/call` of `name` with an MCP bearer token. */
export const toolCallHeaders = (token, name) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': name,
  authorization: `Bearer ${token}`,
});

/** Start times five minutes apart from `days` ahead, the `n`th for a counter shared by contenders. */
export function startTimes(days) {
  const first = Math.ceil((Date.now() + days * 86_400_000) / 300_000) * 300_000;
  return (n) => new Date(first + n * 300_000).toISOString().replace('.000Z', 'Z');
}

/** The arguments of the `n`th distinct booking: its own start time. */
export const createArgs = (startsAt, n) => ({
  customer_id: 'cu_alan',
  starts_at: startsAt(n),
  duration_minutes: 30,
  price: { minor_units: 4500, currency: 'EUR' },
});

// The callers' connections: kept alive, any number per server. Node's `http` client, not `fetch`:
// fetch spends about twice the CPU per request, and more on a POST with a body than on a GET, so
// on these two shared cores it charged an MCP call (always a POST) more than a REST read.
const callers = new Agent({ keepAlive: true });

/** One request; `{ ok: true }` when `isOk(status, body)`, else `{ ok: false, sample }` (the answer or the error, cut). */
export function exchange(url, init, isOk) {
  const headers = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
  return new Promise((resolve) => {
    const failed = (error) => resolve({ ok: false, sample: String(error?.message ?? error) });
    const sent = request(url, { method: init.method ?? 'GET', headers, agent: callers }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', failed);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve(
          isOk(response.statusCode, text)
            ? { ok: true }
            : { ok: false, sample: `${response.statusCode} ${text.slice(0, 160)}` },
        );
      });
    });
    sent.on('error', failed);
    sent.end(init.body);
  });
}

/** A tool call answered with a result, not a tool error. */
export const toolResult = (status, text) => status === 200 && !text.includes('"isError":true');

const startsAt = startTimes(30);

/** Drives `concurrency` callers over the contender's URLs for `durationMs`; distinct creates. */
async function drive(contender, { durationMs, concurrency, offset }) {
  const latencies = [];
  let ok = 0;
  let errors = 0;
  let sample;
  let n = offset.value;
  const deadline = performance.now() + durationMs;
  const headers = toolCallHeaders(contender.token, 'create_booking');
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const i = n++;
        const url = contender.urls[i % contender.urls.length];
        const t0 = performance.now();
        const body = toolCallBody(i, 'create_booking', createArgs(startsAt, i));
        const answer = await exchange(url, { method: 'POST', headers, body }, toolResult);
        if (answer.ok) ok++;
        else {
          errors++;
          sample ??= answer.sample;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  offset.value = n;
  return { ok, errors, sample, elapsedMs: performance.now() - started, latencies };
}

/**
 * Measures the contenders in interleaved rounds; returns one row per contender
 * (writes/s, p50 and p99 latency in ms, errors). PostgreSQL contenders are
 * left out, with the reason, when no PostgreSQL answers.
 */
export async function runReplicas({ rounds, roundMs, concurrency }, log) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-replicas-'));
  const contenders = [];
  try {
    contenders.push(
      await startContender(
        'SQLite, 1 process',
        { BOOKING_DB: join(dir, 'booking.db'), DATABASE_URL: '' },
        1,
        async () => undefined,
      ),
    );
    try {
      const one = await postgresDatabase();
      contenders.push(await startContender('PostgreSQL, 1 process', { DATABASE_URL: one.url }, 1, one.drop));
      const three = await postgresDatabase();
      contenders.push(
        await startContender('PostgreSQL, 3 replicas', { DATABASE_URL: three.url }, 3, three.drop),
      );
    } catch (error) {
      log(`  ! PostgreSQL contenders left out: ${error?.message ?? error}`);
    }
    const offset = { value: 0 };
    const tallies = contenders.map(() => ({
      ok: 0,
      errors: 0,
      elapsedMs: 0,
      latencies: [],
      sample: undefined,
    }));
    for (const contender of contenders) {
      await drive(contender, { durationMs: Math.min(roundMs, 500), concurrency, offset }); // warm-up
    }
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < contenders.length; k++) {
        const i = (r + k) % contenders.length;
        const result = await drive(contenders[i], { durationMs: roundMs, concurrency, offset });
        const tally = tallies[i];
        tally.ok += result.ok;
        tally.errors += result.errors;
        tally.elapsedMs += result.elapsedMs;
        tally.latencies.push(...result.latencies);
        tally.sample ??= result.sample;
      }
    }
    return contenders.map((contender, i) => {
      const tally = tallies[i];
      return {
        label: contender.label,
        writes: tally.ok,
        errors: tally.errors,
        errorSample: tally.sample,
        perSecond: (tally.ok / tally.elapsedMs) * 1000,
        p50Ms: median(tally.latencies),
        p99Ms: quantile(tally.latencies, 0.99),
      };
    });
  } finally {
    for (const contender of contenders) await contender.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
