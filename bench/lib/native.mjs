// Section 2n: Gatehouse's native 2026-07-28 path against the SDK path it falls
// back to and the bare SDK v2 low-level Server, side by side in one run. The
// same guarded read tool (`echo`, the whole pipeline: tenant, rights, both kill
// switches read per request, output cleaning) behind `listen()` with the native
// path on and off; each request is a fresh stateless tools/call.
import { listen } from '@gatehousejs/core/node';
import { gatehouseEchoServer, startLowLevel } from './contenders.mjs';
import { measureRounds, pairedRatio } from './http.mjs';
import { round } from './stats.mjs';

/** The target of the native path against the bare SDK low-level Server (2026-07-28). */
export const NATIVE_TARGET = 2;

async function startGatehouseWith(native) {
  const listening = await listen(gatehouseEchoServer(), { host: '127.0.0.1', port: 0, native });
  return { url: listening.url.href, close: () => listening.close() };
}

/** The contenders in the order they are measured within each round. */
export const NATIVE_CONTENDERS = [
  { id: 'lowLevel', label: 'SDK low-level Server', start: startLowLevel },
  { id: 'nativeOn', label: 'Gatehouse listen(), native on', start: () => startGatehouseWith(true) },
  { id: 'nativeOff', label: 'Gatehouse listen(), native off', start: () => startGatehouseWith(false) },
];

/** `a` over `b`: the paired req/s ratio and the CPU-per-request ratio (a cross-check). */
function ratio(rows, a, b, target) {
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  const paired = pairedRatio(byId[a], byId[b]);
  if (!paired) return { target, met: undefined };
  const clean = [byId[a], byId[b]].every((r) => !r.failed && r.errors === 0);
  return {
    median: round(paired.median, 3),
    min: round(paired.min, 3),
    max: round(paired.max, 3),
    cpuRatio: round(byId[b].cpuUsPerReq / byId[a].cpuUsPerReq, 3),
    ...(target === undefined ? {} : { target, met: clean ? paired.median >= target : undefined }),
  };
}

/**
 * Measures the three contenders in one era with `plan`'s interleaved rounds;
 * `started` are the contenders already started (kept across eras). Prints the
 * table and the ratios through `report`; returns the figures.
 */
export async function nativeSection(loadgen, started, era, plan, report) {
  const rows = await measureRounds(loadgen, started, { era, method: 'tools/call', ...plan });
  report.printRows(rows);
  const ratios = {
    // the target applies to 2026-07-28, where the native path answers; on 2025-11-25 both fall through
    nativeVsLowLevel: ratio(rows, 'nativeOn', 'lowLevel', era === '2026-07-28' ? NATIVE_TARGET : undefined),
    nativeVsOff: ratio(rows, 'nativeOn', 'nativeOff'),
    offVsLowLevel: ratio(rows, 'nativeOff', 'lowLevel'),
  };
  const line = (name, r) =>
    r.median === undefined
      ? `${name}: n/a (a contender failed)`
      : `${name}: ${report.fmt(r.median, 3)}× req/s (rounds ${report.fmt(r.min, 2)}–${report.fmt(r.max, 2)}; ` +
        `by server CPU/req ${report.fmt(r.cpuRatio, 3)}×)` +
        (r.target === undefined ? '' : ` target ≥ ${r.target}: ${report.verdict(r.met)}`);
  report.log(line('native on / low-level Server ', ratios.nativeVsLowLevel));
  report.log(line('native on / native off       ', ratios.nativeVsOff));
  report.log(line('native off / low-level Server', ratios.offVsLowLevel));
  return { contenders: report.summarize(rows), ratios };
}

/** The target rows of this section for the summary table. */
export function nativeTargets(native, fmt) {
  return ['2026-07-28', '2025-11-25'].map((era) => {
    const r = native?.[era]?.ratios;
    const on = r?.nativeVsLowLevel;
    const off = r?.nativeVsOff;
    const measured =
      on?.median === undefined
        ? 'not measured'
        : `${fmt(on.median, 3)}× (CPU ${fmt(on.cpuRatio, 3)}×); native on / off ${fmt(off?.median, 3)}×`;
    return era === '2026-07-28'
      ? { target: `${era} Gatehouse native / low-level Server ≥ ${NATIVE_TARGET}`, measured, met: on?.met }
      : {
          target: `${era} Gatehouse native on / off (info: both take the SDK path)`,
          measured,
          met: undefined,
        };
  });
}
