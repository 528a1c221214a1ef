import type { Options } from 'tsup';

/**
 * Dependencies published as ESM only (no `require` condition in their exports map).
 * The CommonJS build bundles them so `require()` of every entry loads on Node 20 and 22
 * without relying on `require(esm)`; the ESM build keeps them external.
 */
const esmOnly = ['canonicalize', '@noble/hashes', 'jose'];

const common = (entry: string[]): Options => ({
  entry,
  dts: true,
  sourcemap: true,
  target: 'node20',
  treeshake: true,
});

/** The build every published package shares: ESM + CJS + types, for Node 20. */
export const packageBuild = (entry: string[]): Options[] => [
  { ...common(entry), format: ['esm'], clean: true },
  { ...common(entry), format: ['cjs'], noExternal: esmOnly },
];
