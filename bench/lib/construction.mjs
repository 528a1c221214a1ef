// Section 3, in-process half: what building one per-request SDK server costs.
// Gatehouse's own factory (core's internal `sdkServer`) is not exported from
// the built package, so its cost is measured through HTTP instead (run.mjs).
import { lowLevelServer, mcpServer } from './contenders.mjs';
import { collect, median } from './stats.mjs';

const factories = [
  { id: 'lowLevelServer', label: 'new Server + 2 handlers', make: lowLevelServer },
  { id: 'mcpServer', label: 'new McpServer + registerTool (info)', make: mcpServer },
];

/** Median µs per construction, measured over batches in alternating rounds. */
export function runConstruction({ rounds, batches, batchSize }) {
  const perBuild = factories.map(() => []);
  for (const factory of factories) for (let i = 0; i < batchSize * 20; i++) factory.make();
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < factories.length; k++) {
      const i = (k + r) % factories.length;
      collect();
      for (let b = 0; b < batches; b++) {
        const t0 = performance.now();
        for (let n = 0; n < batchSize; n++) factories[i].make();
        perBuild[i].push(((performance.now() - t0) * 1000) / batchSize);
      }
    }
  }
  return factories.map((f, i) => ({ id: f.id, label: f.label, medianUs: median(perBuild[i]) }));
}
