// Section 4: bounded memory of core's MemoryReplayStore under a million
// distinct calls with a short window and a fake clock.
import { MemoryReplayStore } from '@gatehousejs/core';
import { heapMiB } from './stats.mjs';

/**
 * Each call begins and completes its own key; the clock advances 1 ms per
 * call, so with a 2 s window about 2,000 records are live at any time.
 */
export async function runReplayMemory({ calls, checkpoints, leaseMs = 1_000, windowMs = 2_000 }) {
  const store = new MemoryReplayStore();
  const points = [];
  const every = Math.floor(calls / checkpoints);
  let now = 1_700_000_000_000;
  const started = performance.now();
  points.push({ calls: 0, heapMiB: heapMiB(), live: store.size });
  for (let i = 1; i <= calls; i++) {
    const key = `fp_${i.toString(36)}_0123456789abcdef`;
    const begun = await store.begin(key, 'digest', leaseMs, now);
    if (begun.state !== 'started') throw new Error(`Replay store answered ${begun.state} for a fresh key.`);
    await store.complete(key, begun.fence, 'digest', { status: 'ok', id: `n${i}` }, windowMs, now);
    now += 1;
    if (i % every === 0) points.push({ calls: i, heapMiB: heapMiB(), live: store.size });
  }
  const elapsedMs = performance.now() - started;
  const base = points[0].heapMiB;
  const peak = Math.max(...points.map((p) => p.heapMiB));
  const growth = peak / base;
  return { points, growth, flat: growth <= 2, usPerCall: (elapsedMs * 1000) / calls, windowMs };
}

/** Time per begin+complete at two window lengths, i.e. two sizes of the live set. */
export async function runReplaySweepCost({ calls }) {
  const rows = [];
  for (const windowMs of [2_000, 20_000]) {
    const store = new MemoryReplayStore();
    let now = 1_700_000_000_000;
    const run = async (n, offset) => {
      for (let i = 0; i < n; i++) {
        const key = `sw_${(offset + i).toString(36)}`;
        const begun = await store.begin(key, 'digest', windowMs / 2, now);
        await store.complete(key, begun.fence, 'digest', { status: 'ok' }, windowMs, now);
        now += 1;
      }
    };
    await run(windowMs, 0); // fill the window first, so the live set is at its steady size
    const started = performance.now();
    await run(calls, windowMs);
    rows.push({ windowMs, live: store.size, usPerCall: ((performance.now() - started) * 1000) / calls });
  }
  return rows;
}
