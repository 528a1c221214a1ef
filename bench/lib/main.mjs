// The benchmark itself; bench/run.mjs checks the build and then loads this module.
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runConstruction } from './construction.mjs';
import { CONTENDERS } from './contenders.mjs';
import { startPlainEcho } from './contendersPlain.mjs';
import { V1_CONTENDERS, v1ServerErrors } from './contendersV1.mjs';
import { runHandlers } from './handler.mjs';
import { measureRounds, pairedRatio, startContenders, startLoadGenerator } from './http.mjs';
import { runInProcess } from './inProcess.mjs';
import { NATIVE_CONTENDERS, nativeSection, nativeTargets } from './native.mjs';
import { runPresenters } from './presenters.mjs';
import { runReplayMemory, runReplaySweepCost } from './replayMemory.mjs';
import { runReplicas } from './replicas.mjs';
import { runRestVsMcp } from './restVsMcp.mjs';
import { runSoak } from './soak.mjs';
import { round, table } from './stats.mjs';
import { runTelemetry } from './telemetry.mjs';

const QUICK = process.argv.includes('--quick');
/** `--soak` adds the soak (minutes of mixed load on one booking server) after the other sections; `--soak-only` runs it alone. */
const SOAK_ONLY = process.argv.includes('--soak-only');
const SOAK = SOAK_ONLY || process.argv.includes('--soak');
/** `--only 2n,6` runs just those sections (ids: 1, 1b, 1c, 2, 2n, 2v1, 3, 4, 5, 6), for work on one figure; judge targets on a full run. */
const ONLY = (() => {
  const at = process.argv.indexOf('--only');
  return at > 0 ? new Set((process.argv[at + 1] ?? '').split(',').map((id) => id.trim())) : undefined;
})();
const wanted = (id) => ONLY === undefined || ONLY.has(id);
/**
 * `--baseline DIR`: another checkout of Gatehouse, installed and built (say the parent
 * commit, in a git worktree). Its own bench code builds its Gatehouse contenders on its own
 * packages, and they run in the same alternating rounds as this build's: this build's
 * in-process overhead and HTTP req/s are then compared with the baseline's side by side.
 */
const BASELINE_DIR = (() => {
  const at = process.argv.indexOf('--baseline');
  return at > 0 ? resolve(process.argv[at + 1] ?? '') : undefined;
})();
const baselineModule = (file) => import(pathToFileURL(join(BASELINE_DIR, 'bench/lib', file)).href);
const CONCURRENCY = 16;
const TARGETS = {
  overheadUs: 25,
  vsLowLevel: 0.9,
  vsMcpServer: 1.0,
  heapGrowth: 2,
  noopTelemetryUs: 2,
  mcpVsRest: 0.9,
  soakRssMB: 300,
  /** RSS growth over the soak's last window read as "flat": within ± this many MB per minute. */
  soakSlopeMBPerMin: 5,
};

// Many short interleaved rounds rather than a few long ones: other processes on
// this 2-core machine come and go, and short rounds share their effect out evenly.
const PLAN = QUICK
  ? {
      inProcess: { rounds: 3, calls: 1_000, warmupCalls: 1_000 },
      modern: { warmupMs: 600, roundMs: 600, rounds: 3 },
      legacy: { warmupMs: 300, roundMs: 600, rounds: 1 },
      v1: { warmupMs: 300, roundMs: 600, rounds: 2 },
      ceilingMs: 500,
      handler: { rounds: 2, calls: 150 },
      construction: { rounds: 2, batches: 10, batchSize: 100 },
      memory: { calls: 100_000, checkpoints: 4 },
      sweep: { calls: 10_000 },
      replicas: { rounds: 1, roundMs: 1_500, concurrency: 16 },
      restVsMcp: { rounds: 1, roundMs: 500, warmupMs: 200, concurrency: 16 },
      soak: { durationMs: 40_000, sampleMs: 1_000, trailMs: 10_000, windowMs: 20_000, concurrency: 16 },
    }
  : {
      inProcess: { rounds: 10, calls: 3_000, warmupCalls: 3_000 },
      modern: { warmupMs: 2_000, roundMs: 1_500, rounds: 10 },
      legacy: { warmupMs: 1_000, roundMs: 1_500, rounds: 5 },
      v1: { warmupMs: 1_000, roundMs: 1_500, rounds: 5 },
      ceilingMs: 2_000,
      handler: { rounds: 6, calls: 400 },
      construction: { rounds: 6, batches: 20, batchSize: 200 },
      memory: { calls: 1_000_000, checkpoints: 4 },
      sweep: { calls: 50_000 },
      replicas: { rounds: 5, roundMs: 3_000, concurrency: 16 },
      restVsMcp: { rounds: 5, roundMs: 2_000, warmupMs: 1_000, concurrency: 16 },
      soak: { durationMs: 300_000, sampleMs: 2_000, trailMs: 30_000, windowMs: 60_000, concurrency: 16 },
    };

const log = (line = '') => console.log(line);
const fmt = (value, digits = 1) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits }) : '-';
const verdict = (met) => (met === undefined ? 'n/a' : met ? 'MET' : 'NOT MET');
/** A row's status: ok, or flagged with how many errors and the first one. */
const flagged = (errors, sample) =>
  errors > 0 ? `FLAGGED (${errors} errors: ${sample?.slice(0, 60)})` : 'ok';
const statusOf = (r) =>
  r.failed ? `FAILED: ${r.failed.slice(0, 60)}` : r.errors > 0 ? 'FLAGGED (errors)' : 'ok';
const results = { mode: QUICK ? 'quick' : 'full', node: process.version, cpus: cpus().length, failures: [] };

async function section(title, fn) {
  log();
  log(`== ${title}`);
  try {
    await fn();
  } catch (error) {
    log(`  ! section failed: ${error?.stack ?? error}`);
    results.failures.push({ section: title, error: String(error?.message ?? error) });
  }
}

/** The table of an in-process section: per-call latency and throughput of each contender. */
const perCallTable = (rows) =>
  table(
    ['contender', 'calls', 'median µs', 'p90 µs', 'p99 µs', 'ops/s'],
    rows.map((r) => [
      r.label,
      r.calls,
      fmt(r.medianUs, 2),
      fmt(r.p90Us, 2),
      fmt(r.p99Us, 1),
      fmt(r.opsPerSec, 0),
    ]),
  );

async function inProcessSection() {
  const baseline = BASELINE_DIR ? await baselineModule('inProcess.mjs') : undefined;
  const extra = baseline
    ? [
        {
          id: 'baseline',
          label: 'Gatehouse callTool (baseline)',
          make: () => baseline.gatehouseWrite(new baseline.NoteTable()),
        },
      ]
    : [];
  const rows = await runInProcess(PLAN.inProcess, extra);
  log(perCallTable(rows));
  const bare = rows.find((r) => r.id === 'bare');
  const gatehouse = rows.find((r) => r.id === 'gatehouse');
  const overheadUs = gatehouse.medianUs - bare.medianUs;
  const met = overheadUs <= TARGETS.overheadUs;
  log(
    `Gatehouse − bare, median: ${fmt(overheadUs, 2)} µs  (target ≤ ${TARGETS.overheadUs} µs: ${verdict(met)})`,
  );
  const base = rows.find((r) => r.id === 'baseline');
  if (base) {
    const baselineUs = base.medianUs - bare.medianUs;
    log(
      `baseline − bare, median: ${fmt(baselineUs, 2)} µs; this build − baseline: ${fmt(overheadUs - baselineUs, 2)} µs (${BASELINE_DIR})`,
    );
    results.baseline = { dir: BASELINE_DIR, inProcessOverheadUs: round(baselineUs, 3) };
  }
  results.inProcess = {
    contenders: rows.map((r) => ({
      id: r.id,
      calls: r.calls,
      medianUs: round(r.medianUs, 3),
      p90Us: round(r.p90Us, 3),
      p99Us: round(r.p99Us, 3),
      opsPerSec: round(r.opsPerSec, 0),
    })),
    overheadUs: round(overheadUs, 3),
    targetUs: TARGETS.overheadUs,
    met,
  };
}

async function telemetrySection() {
  const { rows, skipped } = await runTelemetry(PLAN.inProcess);
  log(perCallTable(rows));
  if (skipped) log(`  (OpenTelemetry SDK contender skipped: ${skipped})`);
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  const noopUs = byId.noop.medianUs - byId.absent.medianUs;
  const otelUs = byId.otel ? byId.otel.medianUs - byId.absent.medianUs : undefined;
  const met = noopUs <= TARGETS.noopTelemetryUs;
  log(
    `no-op hook − none, median: ${fmt(noopUs, 2)} µs  (target ≤ ${TARGETS.noopTelemetryUs} µs: ${verdict(met)})`,
  );
  if (otelUs !== undefined)
    log(`OpenTelemetry SDK (in memory) − none, median: ${fmt(otelUs, 2)} µs (info, no target)`);
  results.telemetry = {
    contenders: rows.map((r) => ({ id: r.id, medianUs: round(r.medianUs, 3), p90Us: round(r.p90Us, 3) })),
    noopUs: round(noopUs, 3),
    ...(otelUs === undefined ? {} : { otelUs: round(otelUs, 3) }),
    targetUs: TARGETS.noopTelemetryUs,
    met,
  };
}

async function presentersSection() {
  const rows = await runPresenters(PLAN.inProcess, BASELINE_DIR);
  log(perCallTable(rows));
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  const speedup = byId.perValue.medianUs / byId.cached.medianUs;
  log(`a new formatter per value / this build, median: ${fmt(speedup, 2)}× (info, no target)`);
  const vsBaseline = byId.baseline ? byId.baseline.medianUs / byId.cached.medianUs : undefined;
  if (vsBaseline !== undefined) log(`baseline / this build, median: ${fmt(vsBaseline, 2)}×`);
  results.presenters = {
    contenders: rows.map((r) => ({ id: r.id, medianUs: round(r.medianUs, 1), p90Us: round(r.p90Us, 1) })),
    perValueVsCached: round(speedup, 2),
    ...(vsBaseline === undefined ? {} : { baselineVsCached: round(vsBaseline, 2) }),
  };
}

function printRows(rows) {
  log(
    table(
      ['contender', 'req/s', 'server CPU µs/req', 'ok', 'errors', 'p50 ms', 'p99 ms', 'status'],
      rows.map((r) => [
        r.label,
        fmt(r.reqPerSec, 0),
        fmt(r.cpuUsPerReq, 0),
        r.ok,
        r.errors,
        fmt(r.p50Ms, 2),
        fmt(r.p99Ms, 2),
        statusOf(r),
      ]),
    ),
  );
  for (const r of rows) for (const sample of r.errorSamples) log(`  ! ${r.id}: ${sample}`);
}

/** Gatehouse against `other`: paired req/s ratio (the target) and the CPU-per-request ratio (a cross-check). */
function ratioAgainst(byId, other, target) {
  const gatehouse = byId.gatehouse;
  const ratio = pairedRatio(gatehouse, byId[other]);
  if (!ratio) return { target, met: undefined };
  const clean = [gatehouse, byId[other]].every((r) => !r.failed && r.errors === 0);
  return {
    median: round(ratio.median, 3),
    min: round(ratio.min, 3),
    max: round(ratio.max, 3),
    cpuRatio: round(byId[other].cpuUsPerReq / gatehouse.cpuUsPerReq, 3),
    target,
    met: clean ? ratio.median >= target : undefined,
  };
}

function throughputRatios(rows) {
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  const ratios = {
    vsLowLevel: ratioAgainst(byId, 'lowLevel', TARGETS.vsLowLevel),
    vsMcpServer: ratioAgainst(byId, 'mcpServer', TARGETS.vsMcpServer),
    ...(byId.baseline ? { vsBaseline: ratioAgainst(byId, 'baseline', 1.0) } : {}),
  };
  const line = (name, r) =>
    r.median === undefined
      ? `${name}: n/a (a contender failed)`
      : `${name}: ${fmt(r.median, 3)}× req/s (rounds ${fmt(r.min, 2)}–${fmt(r.max, 2)}; ` +
        `by server CPU/req ${fmt(r.cpuRatio, 3)}×) target ≥ ${r.target}: ${verdict(r.met)}`;
  log(line('Gatehouse / low-level Server', ratios.vsLowLevel));
  log(line('Gatehouse / McpServer      ', ratios.vsMcpServer));
  if (ratios.vsBaseline) log(line('Gatehouse / baseline build ', ratios.vsBaseline));
  return ratios;
}

const summarize = (rows) =>
  rows.map((r) => ({
    id: r.id,
    reqPerSec: round(r.reqPerSec, 0),
    cpuUsPerReq: round(r.cpuUsPerReq, 1),
    perRound: r.perRound.map((v) => round(v, 0)),
    ok: r.ok,
    errors: r.errors,
    p50Ms: round(r.p50Ms, 3),
    p99Ms: round(r.p99Ms, 3),
    ...(r.failed ? { failed: r.failed } : {}),
    ...(r.errorSamples.length > 0 ? { errorSamples: r.errorSamples } : {}),
  }));

async function throughputSection(loadgen, contenders, era, plan) {
  const rows = await measureRounds(loadgen, contenders, {
    era,
    method: 'tools/call',
    concurrency: CONCURRENCY,
    ...plan,
  });
  printRows(rows);
  results.http[era] = { contenders: summarize(rows), ratios: throughputRatios(rows) };
}

/** How much load the client can deliver at all, against a server that does next to nothing. */
async function ceilingCheck(loadgen) {
  const plain = await startPlainEcho();
  try {
    const [row] = await measureRounds(loadgen, [plain], {
      era: '2026-07-28',
      method: 'tools/call',
      concurrency: CONCURRENCY,
      warmupMs: PLAN.ceilingMs,
      roundMs: PLAN.ceilingMs,
      rounds: 1,
    });
    log(
      `Load generator ceiling (plain node:http JSON-RPC echo, no SDK): ${fmt(row.reqPerSec, 0)} req/s` +
        (row.errors > 0 ? `, ${row.errors} errors` : ''),
    );
    results.http.ceilingReqPerSec = round(row.reqPerSec, 0);
  } finally {
    await plain.close();
  }
}

/** Prints section 3b's table; returns Gatehouse − low-level per method. */
function printHandlerTable(handlerRows) {
  const methods = ['tools/list', 'tools/call'];
  const ids = [...new Set(handlerRows.map((r) => r.id))];
  const cell = (id, method) => handlerRows.find((r) => r.id === id && r.method === method);
  const statusOfRows = (rows) => {
    const failed = rows.find((r) => r.failed)?.failed;
    if (failed) return `FAILED: ${failed.slice(0, 60)}`;
    return rows.some((r) => r.errors.length > 0) ? 'FLAGGED (errors)' : 'ok';
  };
  log(
    table(
      ['handler', ...methods, 'status'],
      ids.map((id) => {
        const rows = methods.map((m) => cell(id, m));
        return [rows[0].label, ...rows.map((r) => fmt(r.medianUs, 0)), statusOfRows(rows)];
      }),
    ),
  );
  for (const r of handlerRows) for (const e of r.errors) log(`  ! ${r.id} ${r.method}: ${e}`);
  const extra = Object.fromEntries(
    methods.map((m) => [m, (cell('gatehouse', m)?.medianUs ?? Number.NaN) - cell('lowLevel', m).medianUs]),
  );
  log(
    `Gatehouse − low-level: tools/list ${fmt(extra['tools/list'], 0)} µs ` +
      `(gate + authenticate + factory + listing), tools/call ${fmt(extra['tools/call'], 0)} µs`,
  );
  return extra;
}

async function constructionSection() {
  const built = runConstruction(PLAN.construction);
  log('3a. In-process, building one per-request server (no transport):');
  log(
    table(
      ['factory', 'median µs'],
      built.map((b) => [b.label, fmt(b.medianUs, 2)]),
    ),
  );
  log("Gatehouse's per-request factory (core's internal sdkServer) is not exported from the built package,");
  log('so its cost is measured through HTTP, inside the whole request it is built for: one 2026-07-28');
  log("request through each HTTP handler's web-standard fetch() (the code listen() serves, minus sockets),");
  log('in-process, alternating rounds.');
  log();
  log('3b. Median µs per request:');
  const handlerRows = await runHandlers(PLAN.handler);
  const handlerExtra = printHandlerTable(handlerRows);
  results.construction = {
    inProcess: built.map((b) => ({ id: b.id, medianUs: round(b.medianUs, 3) })),
    gatehouseFactoryExported: false,
    handler: handlerRows.map((r) => ({
      id: r.id,
      method: r.method,
      medianUs: round(r.medianUs, 1),
      ...(r.failed ? { failed: r.failed } : {}),
      ...(r.errors.length > 0 ? { errors: r.errors } : {}),
    })),
    handlerGatehouseExtraUs: {
      toolsList: round(handlerExtra['tools/list'], 1),
      toolsCall: round(handlerExtra['tools/call'], 1),
    },
  };
}

async function httpSections() {
  results.http = {};
  const loadgen = await startLoadGenerator();
  const baseline = BASELINE_DIR ? await baselineModule('contenders.mjs') : undefined;
  const list = baseline
    ? [
        ...CONTENDERS,
        { id: 'baseline', label: 'Gatehouse listen() (baseline)', start: baseline.startGatehouse },
      ]
    : CONTENDERS;
  const contenders = wanted('2') ? await startContenders(log, list) : [];
  try {
    const eras = [
      ['2026-07-28', PLAN.modern],
      ['2025-11-25', PLAN.legacy],
    ];
    for (const [era, plan] of wanted('2') ? eras : []) {
      const title = `2. Streamable HTTP ${era}: tools/call echo, ${CONCURRENCY} clients, ${plan.rounds} rounds × ${plan.roundMs} ms per contender`;
      await section(title, async () => {
        await throughputSection(loadgen, contenders, era, plan);
        if (era === '2026-07-28') await ceilingCheck(loadgen);
      });
    }
    if (wanted('2n')) await nativeSections(loadgen, eras);
    const v1 = PLAN.v1;
    const title = `2. SDK v1 host, Streamable HTTP 2025-11-25 (stateless): tools/call echo, ${CONCURRENCY} clients, ${v1.rounds} rounds × ${v1.roundMs} ms per contender`;
    if (wanted('2v1')) await section(title, () => v1Section(loadgen));
  } finally {
    await loadgen.close();
    for (const c of contenders) if (c.close) await c.close().catch(() => {});
  }
}

/** Section 2n: the native 2026-07-28 path on and off against the bare low-level Server, per era. */
async function nativeSections(loadgen, eras) {
  results.http.native = {};
  const contenders = await startContenders(log, NATIVE_CONTENDERS);
  const report = { log, fmt, verdict, printRows, summarize };
  try {
    for (const [era, plan] of eras) {
      const title = `2n. Native path, Streamable HTTP ${era}: tools/call echo, ${CONCURRENCY} clients, ${plan.rounds} rounds × ${plan.roundMs} ms per contender`;
      await section(title, async () => {
        const run = { concurrency: CONCURRENCY, ...plan };
        results.http.native[era] = await nativeSection(loadgen, contenders, era, run, report);
      });
    }
  } finally {
    for (const c of contenders) if (c.close) await c.close().catch(() => {});
  }
}

/** Section 2, v1 part: the SDK v1 host bare and with Gatehouse mounted (2025-11-25 only: v1 speaks up to it). */
async function v1Section(loadgen) {
  const era = '2025-11-25';
  const contenders = await startContenders(log, V1_CONTENDERS);
  try {
    const rows = await measureRounds(loadgen, contenders, {
      era,
      method: 'tools/call',
      concurrency: CONCURRENCY,
      ...PLAN.v1,
    });
    printRows(rows);
    for (const error of v1ServerErrors()) log(`  ! server error: ${error}`);
    const [bare, gatehouse] = ['bareV1', 'gatehouseV1'].map((id) => rows.find((r) => r.id === id));
    const ratio = pairedRatio(gatehouse, bare);
    const clean = [bare, gatehouse].every((r) => !r.failed && r.errors === 0);
    const vsBareV1 = ratio
      ? {
          median: round(ratio.median, 3),
          min: round(ratio.min, 3),
          max: round(ratio.max, 3),
          cpuRatio: round(bare.cpuUsPerReq / gatehouse.cpuUsPerReq, 3),
          clean,
        }
      : { clean };
    log(
      vsBareV1.median === undefined
        ? 'Gatehouse on v1 / bare v1: n/a (a contender failed)'
        : `Gatehouse on v1 / bare v1: ${fmt(vsBareV1.median, 3)}× req/s (rounds ${fmt(vsBareV1.min, 2)}–` +
            `${fmt(vsBareV1.max, 2)}; by server CPU/req ${fmt(vsBareV1.cpuRatio, 3)}×) no target (info)`,
    );
    results.http.v1 = { era, contenders: summarize(rows), ratios: { vsBareV1 } };
  } finally {
    for (const c of contenders) if (c.close) await c.close().catch(() => {});
  }
}

async function memorySection() {
  const memory = await runReplayMemory(PLAN.memory);
  log(
    table(
      ['calls', 'heap used MiB', 'live records'],
      memory.points.map((p) => [p.calls.toLocaleString('en-US'), fmt(p.heapMiB, 2), p.live]),
    ),
  );
  log(
    `Peak / start: ${fmt(memory.growth, 2)}× (flag above ${TARGETS.heapGrowth}×: ${memory.flat ? 'flat, MET' : 'GROWTH, NOT MET'}); ` +
      `${fmt(memory.usPerCall, 2)} µs per begin+complete`,
  );
  const sweep = await runReplaySweepCost(PLAN.sweep);
  log('Time per begin+complete by size of the live set (info):');
  log(
    table(
      ['window', 'live records', 'µs per call'],
      sweep.map((s) => [`${s.windowMs} ms`, s.live, fmt(s.usPerCall, 2)]),
    ),
  );
  results.memory = {
    calls: PLAN.memory.calls,
    windowMs: memory.windowMs,
    points: memory.points.map((p) => ({ calls: p.calls, heapMiB: round(p.heapMiB, 3), live: p.live })),
    growth: round(memory.growth, 3),
    met: memory.flat,
    usPerCall: round(memory.usPerCall, 3),
    costByLiveSet: sweep.map((s) => ({
      windowMs: s.windowMs,
      live: s.live,
      usPerCall: round(s.usPerCall, 3),
    })),
  };
}

/** The soak's two target lines (none when the soak did not run). */
function soakTargets() {
  const soak = results.soak;
  if (!soak) return [];
  return [
    {
      target: `soak: booking server RSS at the end < ${TARGETS.soakRssMB} MB`,
      measured: `${fmt(soak.finalRssMB, 0)} MB (peak ${fmt(soak.peakRssMB, 0)} MB)`,
      met: soak.rssMet,
    },
    {
      target: `soak: RSS flat over the last ${soak.windowSeconds} s (±${TARGETS.soakSlopeMBPerMin} MB/min)`,
      measured: `${fmt(soak.windowSlopeMBPerMin, 1)} MB/min`,
      met: soak.flatMet,
    },
  ];
}

/** One line per DESIGN.md target, from the figures above. */
function targetSummary() {
  if (SOAK_ONLY) return soakTargets();
  const rows = [];
  const io = results.inProcess;
  rows.push({
    target: `in-process overhead ≤ ${TARGETS.overheadUs} µs median`,
    measured: io ? `${fmt(io.overheadUs, 2)} µs` : 'not measured',
    met: io?.met,
  });
  const tm = results.telemetry;
  rows.push({
    target: `no-op telemetry hook − none ≤ ${TARGETS.noopTelemetryUs} µs median`,
    measured: tm ? `${fmt(tm.noopUs, 2)} µs` : 'not measured',
    met: tm?.met,
  });
  for (const era of ['2026-07-28', '2025-11-25']) {
    const ratios = results.http?.[era]?.ratios;
    for (const [key, name] of [
      ['vsLowLevel', 'low-level Server'],
      ['vsMcpServer', 'McpServer'],
    ]) {
      const r = ratios?.[key];
      rows.push({
        target: `${era} Gatehouse / ${name} ≥ ${r?.target ?? TARGETS[key]}`,
        measured:
          r?.median === undefined ? 'not measured' : `${fmt(r.median, 3)}× (CPU ${fmt(r.cpuRatio, 3)}×)`,
        met: r?.met,
      });
    }
  }
  rows.push(...nativeTargets(results.http?.native, fmt));
  const v1 = results.http?.v1?.ratios?.vsBareV1;
  rows.push({
    target: '2025-11-25 Gatehouse on SDK v1 / bare v1 (info, no target)',
    measured:
      v1?.median === undefined
        ? 'not measured'
        : `${fmt(v1.median, 3)}× (rounds ${fmt(v1.min, 2)}–${fmt(v1.max, 2)}; CPU ${fmt(v1.cpuRatio, 3)}×)` +
          (v1.clean ? '' : ', with errors'),
    met: undefined,
  });
  for (const r of results.restVsMcp?.ratios ?? []) {
    if (r.op === 'list 20') continue;
    rows.push({
      target: `booking on ${r.engine}: MCP ${r.op} / REST ${r.op} ≥ ${TARGETS.mcpVsRest}`,
      measured: `${fmt(r.ratio, 3)}× (rounds ${fmt(r.low, 2)}–${fmt(r.high, 2)}; CPU: server ${fmt(r.byCpu, 2)}×, all ${fmt(r.byAllCpu, 2)}×)`,
      met: r.ratio >= TARGETS.mcpVsRest,
    });
  }
  rows.push(...soakTargets());
  const memory = results.memory;
  rows.push({
    target: `replay store heap flat (peak ≤ ${TARGETS.heapGrowth}× start)`,
    measured: memory ? `${fmt(memory.growth, 2)}×` : 'not measured',
    met: memory?.met,
  });
  return rows;
}

async function restVsMcpSection() {
  const { rows, ratios, vsBaseline, skipped } = await runRestVsMcp(PLAN.restVsMcp, BASELINE_DIR);
  const withBuild = vsBaseline.length > 0;
  log(
    table(
      [
        'database',
        ...(withBuild ? ['build'] : []),
        'request',
        'via',
        'req/s',
        'CPU µs/req: server',
        'callers',
        'database',
        'status',
      ],
      rows.map((r) => [
        r.engine,
        ...(withBuild ? [r.build] : []),
        r.op,
        r.via,
        fmt(r.perSecond, 0),
        fmt(r.cpuUsPerRequest, 0),
        fmt(r.callerCpuUs, 0),
        r.databaseCpuUs === undefined ? 'in server' : fmt(r.databaseCpuUs, 0),
        flagged(r.errors, r.sample),
      ]),
    ),
  );
  for (const r of ratios)
    log(
      `  ${r.engine} ${r.op}: MCP / REST ${fmt(r.ratio, 2)}× (rounds ${fmt(r.low, 2)}–${fmt(r.high, 2)}); ` +
        `by CPU per request: the server's ${fmt(r.byCpu, 2)}×, all of it ${fmt(r.byAllCpu, 2)}×`,
    );
  for (const r of vsBaseline)
    log(
      `  ${r.engine} ${r.op} ${r.via}: this build / baseline ${fmt(r.ratio, 2)}× (rounds ${fmt(r.low, 2)}–${fmt(r.high, 2)})` +
        (r.baselineMcpVsRest === undefined
          ? ''
          : `; the baseline's MCP / REST ${fmt(r.baselineMcpVsRest, 2)}×`),
    );
  for (const reason of skipped) log(`  (skipped ${reason})`);
  results.restVsMcp = {
    contenders: rows.map((r) => ({
      engine: r.engine,
      build: r.build,
      op: r.op,
      via: r.via,
      perSecond: round(r.perSecond, 0),
      cpuUsPerRequest: round(r.cpuUsPerRequest, 0),
      callerCpuUs: round(r.callerCpuUs, 0),
      databaseCpuUs: r.databaseCpuUs === undefined ? undefined : round(r.databaseCpuUs, 0),
      errors: r.errors,
    })),
    ratios: ratios.map((r) => ({
      ...r,
      ratio: round(r.ratio, 3),
      low: round(r.low, 2),
      high: round(r.high, 2),
      byCpu: round(r.byCpu, 3),
      byAllCpu: round(r.byAllCpu, 3),
    })),
    ...(vsBaseline.length > 0
      ? {
          vsBaseline: vsBaseline.map((r) => ({
            ...r,
            ratio: round(r.ratio, 3),
            low: round(r.low, 2),
            high: round(r.high, 2),
            byCpu: round(r.byCpu, 3),
            byAllCpu: round(r.byAllCpu, 3),
            baselineMcpVsRest: r.baselineMcpVsRest === undefined ? undefined : round(r.baselineMcpVsRest, 3),
          })),
        }
      : {}),
  };
}

async function replicasSection() {
  const rows = await runReplicas(PLAN.replicas, log);
  log(
    table(
      ['booking server', 'writes', 'writes/s', 'p50 ms', 'p99 ms', 'status'],
      rows.map((r) => [
        r.label,
        r.writes,
        fmt(r.perSecond, 0),
        fmt(r.p50Ms, 1),
        fmt(r.p99Ms, 1),
        flagged(r.errors, r.errorSample),
      ]),
    ),
  );
  const by = (label) => rows.find((r) => r.label === label)?.perSecond;
  const ratio = (a, b) => (a && b ? round(a / b, 2) : undefined);
  const pgOne = by('PostgreSQL, 1 process');
  const pgThree = by('PostgreSQL, 3 replicas');
  const sqlite = by('SQLite, 1 process');
  log(
    `  PostgreSQL 1 process vs SQLite: ${fmt(ratio(pgOne, sqlite), 2)}×; 3 replicas vs 1 process: ${fmt(ratio(pgThree, pgOne), 2)}×`,
  );
  results.replicas = {
    contenders: rows.map(({ label, writes, errors, perSecond, p50Ms, p99Ms }) => ({
      label,
      writes,
      errors,
      perSecond: round(perSecond, 0),
      p50Ms: round(p50Ms, 1),
      p99Ms: round(p99Ms, 1),
    })),
    ratios: { postgresVsSqlite: ratio(pgOne, sqlite), threeReplicasVsOne: ratio(pgThree, pgOne) },
  };
}

const MB = 1e6;
const mb = (bytes) => (bytes === undefined ? Number.NaN : bytes / MB);
const soakColumns = ['s', 'RSS MB', 'heap used MB', 'heap total MB', 'external MB', 'requests', 'errors'];
const soakWidths = [5, 8, 13, 14, 12, 9, 7];
const soakLine = (cells) => cells.map((c, i) => String(c).padStart(soakWidths[i])).join('  ');

async function soakSection() {
  const plan = PLAN.soak;
  log(soakLine(soakColumns));
  const soak = await runSoak(plan, (p) =>
    log(
      soakLine([
        fmt(p.t / 1000, 0),
        fmt(mb(p.rss), 0),
        fmt(mb(p.memory?.heapUsed), 1),
        fmt(mb(p.memory?.heapTotal), 1),
        fmt(mb(p.memory?.external), 1),
        p.requests,
        p.errors,
      ]),
    ),
  );
  const requests = Object.values(soak.ok).reduce((a, b) => a + b, 0);
  const byOp = Object.entries(soak.ok)
    .map(([op, n]) => `${op} ${n}`)
    .join(', ');
  log(`${requests} requests in ${fmt(soak.seconds, 0)} s (${byOp}); ${flagged(soak.errors, soak.sample)}`);
  const finalRssMB = round(mb(soak.finalRss), 1) ?? Number.NaN; // the figure judged is the one printed
  const slope = soak.windowSlope === undefined ? Number.NaN : soak.windowSlope / MB;
  const clean = soak.errors === 0 && Number.isFinite(finalRssMB);
  const rssMet = clean ? finalRssMB < TARGETS.soakRssMB : undefined;
  const flatMet = clean && Number.isFinite(slope) ? slope <= TARGETS.soakSlopeMBPerMin : undefined;
  const windowSeconds = plan.windowMs / 1000;
  log(
    `RSS at the end ${fmt(finalRssMB, 0)} MB, peak ${fmt(mb(soak.peakRss), 0)} MB ` +
      `(target < ${TARGETS.soakRssMB} MB: ${verdict(rssMet)})`,
  );
  const trend = !Number.isFinite(slope)
    ? 'n/a'
    : slope > TARGETS.soakSlopeMBPerMin
      ? 'growing'
      : slope < -TARGETS.soakSlopeMBPerMin
        ? 'shrinking'
        : 'flat';
  log(
    `RSS slope over the last ${windowSeconds} s: ${fmt(slope, 1)} MB/min, ${trend} ` +
      `(flat within ±${TARGETS.soakSlopeMBPerMin} MB/min; target not growing: ${verdict(flatMet)})`,
  );
  results.soak = {
    seconds: round(soak.seconds, 1),
    concurrency: plan.concurrency,
    requests,
    ok: soak.ok,
    errors: soak.errors,
    trail: soak.trail.map((p) => ({
      s: round(p.t / 1000, 0),
      rssMB: round(mb(p.rss), 1),
      heapUsedMB: round(mb(p.memory?.heapUsed), 1),
      heapTotalMB: round(mb(p.memory?.heapTotal), 1),
      externalMB: round(mb(p.memory?.external), 1),
      requests: p.requests,
    })),
    finalRssMB,
    peakRssMB: round(mb(soak.peakRss), 1),
    windowSeconds,
    windowSlopeMBPerMin: round(slope, 2),
    targetRssMB: TARGETS.soakRssMB,
    slopeToleranceMBPerMin: TARGETS.soakSlopeMBPerMin,
    rssMet,
    flatMet,
  };
}

/** Every section but the soak, in order. */
async function standardSections() {
  if (wanted('1'))
    await section(
      '1. In-process: silent write, bare vs Gatehouse pipeline (alternating rounds)',
      inProcessSection,
    );
  if (wanted('1b'))
    await section(
      '1b. In-process: telemetry absent, a no-op hook, the OpenTelemetry SDK in memory',
      telemetrySection,
    );
  if (wanted('1c'))
    await section('1c. In-process: presenting a list of 20 bookings (times and prices)', presentersSection);
  if (wanted('2') || wanted('2n') || wanted('2v1')) {
    try {
      await httpSections();
    } catch (error) {
      log(`  ! HTTP benchmark failed: ${error?.stack ?? error}`);
      results.failures.push({ section: 'http', error: String(error?.message ?? error) });
    }
  }
  if (wanted('3')) await section('3. Per-request server construction', constructionSection);
  const calls = PLAN.memory.calls.toLocaleString('en-US');
  if (wanted('4'))
    await section(`4. Bounded memory: ${calls} distinct calls into MemoryReplayStore`, memorySection);
  if (wanted('5'))
    await section(
      '5. Writes through the booking server: SQLite, PostgreSQL, three replicas',
      replicasSection,
    );
  if (wanted('6'))
    await section('6. The booking service behind REST and behind MCP: SQLite, PostgreSQL', restVsMcpSection);
}

async function main() {
  const gc = globalThis.gc ? 'exposed' : 'NOT exposed (run with --expose-gc; heap figures are rough)';
  log(`Gatehouse bench (${results.mode}) · Node ${process.version} · ${results.cpus} CPUs · gc ${gc}`);
  if (QUICK) log('Quick mode: a smoke run; the ratios are indicative only.');
  const started = performance.now();
  if (!SOAK_ONLY) await standardSections();
  if (SOAK) {
    const { durationMs, concurrency } = PLAN.soak;
    await section(
      `7. Soak: one booking server on SQLite, ${fmt(durationMs / 1000, 0)} s of MCP create, get and list 20, ${concurrency} clients`,
      soakSection,
    );
  }
  results.seconds = round((performance.now() - started) / 1000, 1);
  results.targets = targetSummary();
  log();
  log(`== Targets${QUICK ? ' (quick run: indicative only, judge on a full run)' : ''}`);
  log(
    table(
      ['target', 'measured', 'verdict'],
      results.targets.map((t) => [t.target, t.measured, verdict(t.met)]),
    ),
  );
  log();
  log(`Done in ${fmt(results.seconds, 1)} s.`);
  log(JSON.stringify(results));
  process.exitCode = results.failures.length > 0 ? 1 : 0;
}

await main();
