// `prepack` of every published package (npm runs it in the package's folder before
// `npm pack` and `npm publish`): builds the package unless its dist is current, so no
// tarball ships without its build or with a stale one.
//
// dist is current when it holds every file the package.json points at (exports, main,
// module, types, bin) and is newer than every input of the build: `src/**`, `package.json`,
// `tsup.config.*`, `tsconfig*.json`, and the shared `tsup.shared.ts` and
// `tsconfig.base.json` at the root. A current dist is not built again: `changeset publish`
// runs `npm publish` for every package at once, and a rebuild there would delete a
// package's dist (tsup cleans it) while its dependents' type builds read it. Build the
// workspace first (`npm run build`, as the release workflow does) and every prepack is a
// check; from a clean package it is the build. GATEHOUSE_PREPACK=build always builds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const SHARED_INPUTS = ['tsup.shared.ts', 'tsconfig.base.json'];
const PACKAGE_INPUTS = /^(package\.json|tsup\.config\.[cm]?[jt]s|tsconfig.*\.json)$/;

/** The files under dist/ a package.json points at: every string of exports, main, module, types and bin. */
export function declaredOutputs(manifest) {
  const paths = [];
  const collect = (value) => {
    if (typeof value === 'string') paths.push(value.replace(/^\.\//, ''));
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) collect(inner);
  };
  collect([manifest.exports, manifest.main, manifest.module, manifest.types, manifest.bin]);
  return [...new Set(paths.filter((path) => path.startsWith('dist/')))];
}

/** Modification times (ms) of every file under `dir`; [] when it is missing. */
function mtimes(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
}

/**
 * Why the package in `dir` (its shared build files in `root`) must be built, or undefined
 * when its dist is current.
 */
export function staleness(dir, root) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const built = mtimes(join(dir, 'dist'));
  if (built.length === 0) return 'no dist';
  const missing = declaredOutputs(manifest).filter((path) => !existsSync(join(dir, path)));
  if (missing.length) return `dist lacks ${missing.join(', ')}`;
  const configs = readdirSync(dir)
    .filter((file) => PACKAGE_INPUTS.test(file))
    .map((file) => join(dir, file));
  const inputs = [...configs, ...SHARED_INPUTS.map((file) => join(root, file))].filter((file) =>
    existsSync(file),
  );
  const newest = Math.max(...mtimes(join(dir, 'src')), ...inputs.map((file) => statSync(file).mtimeMs));
  return newest > Math.min(...built) ? 'sources newer than dist' : undefined;
}

function main() {
  const dir = process.cwd();
  const root = resolve(import.meta.dirname, '..');
  const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const reason = process.env.GATEHOUSE_PREPACK === 'build' ? 'GATEHOUSE_PREPACK=build' : staleness(dir, root);
  if (!reason) {
    console.error(`prepack ${name}: dist is current, packing it as built`);
    return;
  }
  console.error(`prepack ${name}: building (${reason})`);
  // the build's output on stderr: stdout belongs to `npm pack --json`
  const build = spawnSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) {
    console.error(`prepack ${name}: the build failed (exit ${build.status ?? build.signal}); nothing packed`);
    process.exit(1);
  }
  const after = staleness(dir, root);
  if (after) {
    console.error(`prepack ${name}: after the build, ${after}; nothing packed`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
