// Section 6: the same booking service behind the product's REST API and behind its MCP tools,
// on one booking server process (the built example) per database, SQLite and PostgreSQL.
// Six contenders in interleaved rounds, 16 keep-alive callers each: create a booking (distinct
// start times, one counter across REST and MCP), get one booking, list 20 bookings. Each row
// gives requests per second and the CPU per request of the server process, of the callers (this
// process) and of PostgreSQL's processes, all sharing the machine's cores; and each operation
// the ratio MCP / REST, the median of its per-round ratios.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  bookingBuild,
  createArgs,
  exchange,
  mint,
  postgresDatabase,
  run,
  startServer,
  startTimes,
  stopServer,
  toolCallBody,
  toolCallHeaders,
} from './replicas.mjs';
import { median } from './stats.mjs';

const CLOCK_TICKS = 100; // Linux USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s
const startsAt = startTimes(40);
const BOOKING_ID = 'bk_ada_boiler';

/** CPU seconds (user + system) a process has used, or undefined off Linux. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** CPU seconds every `postgres` process of this machine has used (backends, WAL writer and the rest), or undefined off Linux. */
function postgresCpuSeconds() {
  let pids;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let seconds = 0;
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') seconds += cpuSeconds(pid) ?? 0;
    } catch {
      // gone meanwhile
    }
  }
  return seconds;
}

/** CPU seconds this process (the callers) has used. */
const callerCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** Microseconds per request of a CPU counter read before and after `done` requests. */
const perRequest = (before, after, done) =>
  before === undefined || after === undefined || done === 0 ? undefined : ((after - before) * 1e6) / done;

/** An API token of Olivia through the product's own sign-in: a password from the CLI, a session, a token. */
export async function apiToken(origin, env, build = bookingBuild()) {
  const { stdout } = await run(process.execPath, [build.cli, 'person', 'password', 'ws_acme', 'p_olivia'], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
  });
  const password = /\(shown once\): (\S+)/.exec(stdout)?.[1];
  if (!password) throw new Error(`the booking CLI printed no password: ${stdout.slice(0, 120)}`);
  const json = { 'content-type': 'application/json', origin };
  const session = await fetch(`${origin}/api/session`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: 'olivia@acme.example', password }),
  });
  const cookie = session.headers.get('set-cookie')?.split(';')[0];
  if (session.status !== 204 || !cookie) throw new Error(`sign-in answered ${session.status}`);
  const created = await fetch(`${origin}/api/api-tokens`, {
    method: 'POST',
    headers: { ...json, cookie },
    body: JSON.stringify({ label: 'bench' }),
  });
  const token = (await created.json()).token;
  if (!token) throw new Error(`token creation answered ${created.status}`);
  return token;
}

/** The six requests, each a function of a distinct number, for one server. */
export function requestsOf(server, tokens) {
  const origin = new URL(server.url).origin;
  const rest = { authorization: `Bearer ${tokens.rest}`, 'content-type': 'application/json' };
  const mcp = (name) => toolCallHeaders(tokens.mcp, name);
  const ok = (status, text) => (status === 200 || status === 201) && !text.includes('"isError":true');
  return [
    {
      op: 'create',
      via: 'REST',
      send: (n) => [
        `${origin}/api/bookings`,
        { method: 'POST', headers: rest, body: JSON.stringify(createArgs(startsAt, n)) },
      ],
      ok,
    },
    {
      op: 'create',
      via: 'MCP',
      send: (n) => [
        server.url,
        {
          method: 'POST',
          headers: mcp('create_booking'),
          body: toolCallBody(n, 'create_booking', createArgs(startsAt, n)),
        },
      ],
      ok,
    },
    { op: 'get', via: 'REST', send: () => [`${origin}/api/bookings/${BOOKING_ID}`, { headers: rest }], ok },
    {
      op: 'get',
      via: 'MCP',
      send: (n) => [
        server.url,
        {
          method: 'POST',
          headers: mcp('get_booking'),
          body: toolCallBody(n, 'get_booking', { id: BOOKING_ID }),
        },
      ],
      ok,
    },
    { op: 'list 20', via: 'REST', send: () => [`${origin}/api/bookings?limit=20`, { headers: rest }], ok },
    {
      op: 'list 20',
      via: 'MCP',
      send: (n) => [
        server.url,
        {
          method: 'POST',
          headers: mcp('find_bookings'),
          body: toolCallBody(n, 'find_bookings', { limit: 20 }),
        },
      ],
      ok,
    },
  ];
}

/**
 * One round of one contender: 16 keep-alive callers for `roundMs`; requests, errors, and CPU per
 * request of the server, the callers and (with `databaseCpu`) the database.
 */
async function round(server, request, { roundMs, concurrency }, counter, databaseCpu) {
  const cpuBefore = cpuSeconds(server.child.pid);
  const callersBefore = callerCpuSeconds();
  const databaseBefore = databaseCpu?.();
  const deadline = performance.now() + roundMs;
  const started = performance.now();
  let done = 0;
  let errors = 0;
  let sample;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        // Only creates need distinct numbers (each its own start time); a shared counter would run
        // the starts past the booking horizon on a fast machine, reads being many times as frequent.
        const [url, init] = request.send(request.op === 'create' ? counter.creates++ : counter.reads++);
        const answer = await exchange(url, init, request.ok);
        if (answer.ok) done++;
        else {
          errors++;
          sample ??= answer.sample;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuUsPerRequest = perRequest(cpuBefore, cpuSeconds(server.child.pid), done);
  const callerCpuUs = perRequest(callersBefore, callerCpuSeconds(), done);
  // SQLite runs inside the server process: its CPU is the server's.
  const databaseCpuUs = databaseCpu ? perRequest(databaseBefore, databaseCpu(), done) : undefined;
  const parts = [cpuUsPerRequest, callerCpuUs, ...(databaseCpu ? [databaseCpuUs] : [])];
  return {
    perSecond: done / seconds,
    cpuUsPerRequest,
    callerCpuUs,
    databaseCpuUs,
    allCpuUs: parts.some((us) => us === undefined) ? undefined : parts.reduce((a, b) => a + b, 0),
    errors,
    sample,
  };
}

/**
 * Per-round ratios of two contenders' req/s: the median and the range; and
 * the median per-round ratio of the denominator's CPU per request to the
 * numerator's (above 1: the numerator costs less), `byCpu` of the server's,
 * `byAllCpu` of the server's, the callers' and the database's together.
 */
function pairedRatio(numerator, denominator) {
  const perRound = numerator.map((m, r) => m.perSecond / denominator[r].perSecond);
  const cpuRatio = (field) => {
    const ratios = numerator.map((m, r) => denominator[r][field] / m[field]).filter(Number.isFinite);
    return ratios.length > 0 ? median(ratios) : undefined;
  };
  return {
    ratio: median(perRound),
    low: Math.min(...perRound),
    high: Math.max(...perRound),
    byCpu: cpuRatio('cpuUsPerRequest'),
    byAllCpu: cpuRatio('allCpuUs'),
  };
}

/** One booking server of `build` on its own database (`env`), with both tokens and its six requests. */
async function contendersOf(label, env, build) {
  const server = await startServer(env, build);
  try {
    const origin = new URL(server.url).origin;
    const tokens = { mcp: await mint(env, build), rest: await apiToken(origin, env, build) };
    return { server, requests: requestsOf(server, tokens).map((request) => ({ ...request, build: label })) };
  } catch (error) {
    await stopServer(server);
    throw error;
  }
}

/**
 * Measures one engine's server, and with `baseline` (a booking build of another checkout, on
 * its own database) that build's server in the same rounds; returns a row per contender, the
 * MCP / REST ratio per operation, and this build / baseline per request.
 */
async function measureEngine(label, envs, plan, counter, baseline, databaseCpu) {
  const servers = [await contendersOf('this build', envs.current, bookingBuild())];
  try {
    if (baseline) servers.push(await contendersOf('baseline', envs.baseline, baseline));
    const requests = servers.flatMap((s) => s.requests.map((request) => ({ ...request, server: s.server })));
    for (const request of requests)
      await round(request.server, request, { ...plan, roundMs: plan.warmupMs }, counter, databaseCpu);
    const rounds = requests.map(() => []);
    for (let r = 0; r < plan.rounds; r++) {
      for (let k = 0; k < requests.length; k++) {
        const i = (k + r) % requests.length;
        rounds[i].push(await round(requests[i].server, requests[i], plan, counter, databaseCpu));
      }
    }
    const rows = requests.map((request, i) => ({
      engine: label,
      build: request.build,
      op: request.op,
      via: request.via,
      perSecond: median(rounds[i].map((x) => x.perSecond)),
      cpuUsPerRequest: median(rounds[i].map((x) => x.cpuUsPerRequest ?? Number.NaN)),
      callerCpuUs: median(rounds[i].map((x) => x.callerCpuUs ?? Number.NaN)),
      databaseCpuUs: databaseCpu ? median(rounds[i].map((x) => x.databaseCpuUs ?? Number.NaN)) : undefined,
      errors: rounds[i].reduce((n, x) => n + x.errors, 0),
      sample: rounds[i].find((x) => x.sample)?.sample,
    }));
    const roundsOf = (build, op, via) =>
      rounds[requests.findIndex((q) => q.build === build && q.op === op && q.via === via)];
    const ops = ['create', 'get', 'list 20'];
    const ratios = ops.map((op) => ({
      engine: label,
      op,
      ...pairedRatio(roundsOf('this build', op, 'MCP'), roundsOf('this build', op, 'REST')),
    }));
    const vsBaseline = baseline
      ? ops.flatMap((op) =>
          ['REST', 'MCP'].map((via) => ({
            engine: label,
            op,
            via,
            ...pairedRatio(roundsOf('this build', op, via), roundsOf('baseline', op, via)),
            baselineMcpVsRest:
              via === 'MCP'
                ? pairedRatio(roundsOf('baseline', op, 'MCP'), roundsOf('baseline', op, 'REST')).ratio
                : undefined,
          })),
        )
      : [];
    return { rows, ratios, vsBaseline };
  } finally {
    await Promise.all(servers.map((s) => stopServer(s.server)));
  }
}

/** Section 6 on SQLite, then on PostgreSQL when a server answers; `baselineDir`: another checkout, installed and built. */
export async function runRestVsMcp(plan, baselineDir) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-rest-mcp-'));
  const counter = { creates: 0, reads: 0 };
  const baseline = baselineDir ? bookingBuild(baselineDir) : undefined;
  const results = { rows: [], ratios: [], vsBaseline: [], skipped: [] };
  const collect = (measured) => {
    results.rows.push(...measured.rows);
    results.ratios.push(...measured.ratios);
    results.vsBaseline.push(...measured.vsBaseline);
  };
  try {
    const sqliteEnv = (name) => ({ BOOKING_DB: join(dir, name), DATABASE_URL: '' });
    collect(
      await measureEngine(
        'SQLite',
        { current: sqliteEnv('booking.db'), baseline: sqliteEnv('baseline.db') },
        plan,
        counter,
        baseline,
      ),
    );
    const databases = [];
    try {
      try {
        databases.push(await postgresDatabase());
        if (baseline) databases.push(await postgresDatabase());
      } catch (error) {
        results.skipped.push(`PostgreSQL: ${String(error?.message ?? error).slice(0, 100)}`);
      }
      if (databases.length > (baseline ? 1 : 0)) {
        const [current, other] = databases.map((database) => ({ DATABASE_URL: database.url }));
        collect(
          await measureEngine(
            'PostgreSQL',
            { current, baseline: other },
            plan,
            counter,
            baseline,
            postgresCpuSeconds,
          ),
        );
      }
    } finally {
      for (const database of databases) await database.drop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
