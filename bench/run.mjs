// Gatehouse benchmark. Full run (~3 min): `npm run bench`; smoke run (~25 s): `npm run bench -- --quick`.
// Imports the BUILT packages (run `npm run build` first); `--expose-gc` makes the heap figures exact.
// Speed targets are judged on ratios measured side by side in this one run, never on absolute times.
// Prints aligned tables, then one JSON line with every figure. Exits 0 when every section ran (targets
// are reported, not enforced) and 1 when a section crashed or the packages are not built.
for (const entry of ['@gatehousejs/core', '@gatehousejs/core/node']) {
  try {
    await import(entry);
  } catch (error) {
    console.error(`Cannot load ${entry} (${error?.code ?? error?.message ?? error}).`);
    console.error('The bench imports the built packages: run `npm run build` first.');
    process.exit(1);
  }
}
await import('./lib/main.mjs');
