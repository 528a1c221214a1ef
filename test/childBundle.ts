/**
 * Tests that need a real separate process (a stdio server, a writer killed
 * mid-transaction, a server restarted on its database file) bundle a
 * TypeScript entry, with the workspace sources it imports, into one CommonJS
 * file that plain Node runs. Packages named `external` (native or
 * worker-spawning ones) are loaded at run time from the workspace's
 * `node_modules`, which {@link CHILD_ENV} points `NODE_PATH` at.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { buildSync } from 'esbuild';
import { alias } from '../vitest.workspace.js';

/** The `node_modules` holding better-sqlite3 (and every hoisted dependency). */
const NODE_MODULES = dirname(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')));

/** The environment a bundled child needs to find its external packages. */
export const CHILD_ENV: Readonly<Record<string, string>> = Object.freeze({ NODE_PATH: NODE_MODULES });

/** The workspace packages mapped to their sources, as the test projects resolve them. */
const SOURCES = Object.fromEntries(alias.map(({ find, replacement }) => [find, replacement]));

/** Bundles `entry` into `outfile` (CommonJS, Node 20) and returns `outfile`. */
export function bundleChild(
  entry: string,
  outfile: string,
  external: readonly string[] = ['better-sqlite3', 'pino', 'pg'],
): string {
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: [...external],
    alias: SOURCES,
    logLevel: 'silent',
  });
  return outfile;
}
