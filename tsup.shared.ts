import type { Options } from 'tsup';

/** The build every published package shares: ESM + CJS + types, for Node 20. */
export const packageBuild = (entry: string[]): Options => ({
  entry,
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  treeshake: true,
});
