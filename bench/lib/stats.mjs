// Small statistics and text-table helpers.

/** The q-quantile (0..1) of numbers, by nearest rank on a sorted copy. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const median = (values) => quantile(values, 0.5);

/** Rounds for display and JSON. */
export const round = (value, digits = 2) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : null;

/** Aligned text table: first column left-aligned, the others right-aligned. */
export function table(header, rows) {
  const cells = [header, ...rows].map((row) => row.map((cell) => String(cell ?? '-')));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join(
    '\n',
  );
}

/** Runs a full collection when the process was started with --expose-gc. */
export function collect() {
  globalThis.gc?.();
}

/** Heap used in MiB after a full collection. */
export function heapMiB() {
  collect();
  collect();
  return process.memoryUsage().heapUsed / 2 ** 20;
}
