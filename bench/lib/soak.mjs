// The soak (opt-in: `--soak`): one booking server on SQLite (the built example, its own process)
// under a mixed MCP load for minutes, 16 keep-alive callers sending create (distinct start
// times), get one and list 20 in turn. The server's RSS is read from /proc/<pid>/status every
// few seconds; its V8 heap (process.memoryUsage) is asked for on SIGUSR2 through a probe
// preloaded into that process only. Returns the trail, the final and peak RSS and the slope of
// RSS over the last window (least squares over every sample in it).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { exchange, mint, startServer, stopServer } from './replicas.mjs';
import { requestsOf } from './restVsMcp.mjs';

const PROBE = fileURLToPath(new URL('./memoryProbe.cjs', import.meta.url));
const PROBE_WAIT_MS = 2_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The resident set of a process in bytes (VmRSS), or undefined off Linux. */
function rssBytes(pid) {
  try {
    const kib = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** Reads the probe's `@memory` lines from the server's stderr; `read()` signals and awaits the next one. */
function memoryProbe(child) {
  const waiting = [];
  let buffered = '';
  child.stderr.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('@memory ')) waiting.shift()?.(JSON.parse(line.slice('@memory '.length)));
    }
  });
  return {
    read() {
      const answer = new Promise((resolve) => waiting.push(resolve));
      child.kill('SIGUSR2');
      return Promise.race([answer, sleep(PROBE_WAIT_MS).then(() => undefined)]);
    },
  };
}

/** The least-squares slope of `y` over `t` (ms), per minute; undefined with fewer than two points. */
export function slopePerMinute(points) {
  if (points.length < 2) return undefined;
  const n = points.length;
  const meanT = points.reduce((s, p) => s + p.t, 0) / n;
  const meanY = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - meanT) * (p.y - meanY);
    den += (p.t - meanT) ** 2;
  }
  return den === 0 ? undefined : (num / den) * 60_000;
}

/** `concurrency` callers until `deadline`, each sending the MCP requests in turn; counts into `tally`. */
async function drive(requests, concurrency, deadline, tally) {
  const sent = requests.map(() => 0);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const i = next++ % requests.length;
        const request = requests[i];
        const [url, init] = request.send(sent[i]++); // creates: each its own start time
        const answer = await exchange(url, init, request.ok);
        if (answer.ok) tally.ok[request.op] = (tally.ok[request.op] ?? 0) + 1;
        else {
          tally.errors++;
          tally.sample ??= answer.sample;
        }
      }
    }),
  );
}

/** Samples RSS every `sampleMs` until `done` settles, and the whole memory every `trailMs` (logged as it goes). */
async function watch(server, plan, started, done, tally, log) {
  const probe = memoryProbe(server.child);
  const samples = [];
  const trail = [];
  let finished = false;
  const finish = () => {
    finished = true;
  };
  done.then(finish, finish);
  for (let mark = 0; ; ) {
    const t = performance.now() - started;
    const rss = rssBytes(server.child.pid);
    if (rss !== undefined) samples.push({ t, y: rss });
    if (t >= mark || finished) {
      const memory = await probe.read();
      const requests = Object.values(tally.ok).reduce((a, b) => a + b, 0);
      const point = { t, rss, memory, requests, errors: tally.errors };
      trail.push(point);
      log(point);
      mark += plan.trailMs;
    }
    if (finished) return { samples, trail };
    await Promise.race([sleep(plan.sampleMs), done]);
  }
}

/**
 * Runs the soak: `durationMs` of mixed MCP load with `concurrency` callers on a fresh SQLite
 * database. `log(point)` receives each trail point as it is taken.
 */
export async function runSoak(plan, log) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-soak-'));
  const env = { BOOKING_DB: join(dir, 'booking.db'), DATABASE_URL: '' };
  const preload = `--require ${JSON.stringify(PROBE)}`;
  const server = await startServer({
    ...env,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '),
  });
  try {
    const requests = requestsOf(server, { mcp: await mint(env) }).filter((r) => r.via === 'MCP');
    const tally = { ok: {}, errors: 0, sample: undefined };
    const started = performance.now();
    const done = drive(requests, plan.concurrency, started + plan.durationMs, tally);
    const { samples, trail } = await watch(server, plan, started, done, tally, log);
    await done;
    const end = samples.at(-1)?.t ?? 0;
    const window = samples.filter((s) => s.t >= end - plan.windowMs);
    return {
      trail,
      samples: samples.length,
      finalRss: samples.at(-1)?.y,
      peakRss: Math.max(...samples.map((s) => s.y)),
      windowSlope: slopePerMinute(window),
      seconds: end / 1000,
      ok: tally.ok,
      errors: tally.errors,
      sample: tally.sample,
    };
  } finally {
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}
