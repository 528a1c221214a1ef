// `npm start`: builds only what the booking example needs and is out of date,
// then serves the example in this process.
//
// A workspace package is rebuilt when its `dist` is missing or lacks a file its
// package.json points at (exports, main, types, bin: a build that failed half
// way), or when any of its
// inputs (`src/**`, `package.json`, `tsup.config.ts`, `tsconfig*.json`, and the
// shared `tsup.shared.ts` / `tsconfig.base.json` at the root) is newer than the
// oldest file in its `dist`. Packages are visited in dependency order, so a
// package's types are built before the packages that import them. Dependents
// are not rebuilt when only a dependency changed: builds keep workspace
// packages external, so they load the dependency's fresh `dist` at run time.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET = '@gatehousejs/example-booking';
const SHARED_INPUTS = ['tsup.shared.ts', 'tsconfig.base.json'].map((file) => join(ROOT, file));
const PACKAGE_INPUTS = /^(package\.json|tsup\.config\.[cm]?[jt]s|tsconfig.*\.json)$/;

/** The files under dist/ a package.json points at: every string in exports, main, types and bin. */
function declaredOutputs(manifest) {
  const paths = [];
  const collect = (value) => {
    if (typeof value === 'string') paths.push(value);
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) collect(inner);
  };
  collect([manifest.exports, manifest.main, manifest.types, manifest.bin]);
  return paths.filter((path) => /^(\.\/)?dist\//.test(path));
}

/** Every workspace package: its name, directory and workspace dependencies. */
function workspacePackages() {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const packages = root.workspaces.map((dir) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
    const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    return {
      name: manifest.name,
      dir: join(ROOT, dir),
      deps,
      hasBuild: Boolean(manifest.scripts?.build),
      outputs: declaredOutputs(manifest),
    };
  });
  const names = new Set(packages.map((p) => p.name));
  for (const p of packages) p.deps = p.deps.filter((dep) => names.has(dep));
  return new Map(packages.map((p) => [p.name, p]));
}

/** `target` and everything it depends on, dependencies first. */
function buildOrder(packages, target) {
  const order = [];
  const visit = (name, trail) => {
    if (order.some((p) => p.name === name)) return;
    if (trail.includes(name)) throw new Error(`Dependency cycle: ${[...trail, name].join(' -> ')}`);
    const p = packages.get(name);
    for (const dep of p.deps) visit(dep, [...trail, name]);
    order.push(p);
  };
  visit(target, []);
  return order;
}

/** Modification times (ms) of every file under `dir`, skipping nothing; [] when `dir` is missing. */
function mtimes(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
}

/** Why `p` must be rebuilt, or undefined when its dist is current. */
function staleness(p) {
  const built = mtimes(join(p.dir, 'dist'));
  if (built.length === 0) return 'not built yet';
  if (p.outputs.some((path) => !existsSync(join(p.dir, path)))) return 'its last build is incomplete';
  const oldestOutput = Math.min(...built);
  const configs = readdirSync(p.dir).filter((file) => PACKAGE_INPUTS.test(file));
  const inputs = [
    ...mtimes(join(p.dir, 'src')),
    ...[...configs.map((file) => join(p.dir, file)), ...SHARED_INPUTS]
      .filter((file) => existsSync(file))
      .map((file) => statSync(file).mtimeMs),
  ];
  return Math.max(...inputs) > oldestOutput ? 'sources changed' : undefined;
}

function build(p, reason) {
  process.stdout.write(`Building ${p.name} (${reason})…\n`);
  const started = Date.now();
  const run = spawnSync('npm', ['run', 'build', '--silent', '--workspace', p.name], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (run.status !== 0) {
    process.stdout.write(run.stdout ?? '');
    process.stderr.write(`Error: the build of ${p.name} failed (exit ${run.status ?? run.signal}).\n`);
    process.exit(1);
  }
  process.stdout.write(`Built ${p.name} in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
}

const packages = workspacePackages();
for (const p of buildOrder(packages, TARGET)) {
  const reason = p.hasBuild ? staleness(p) : undefined;
  if (reason) build(p, reason);
}
await import(pathToFileURL(join(packages.get(TARGET).dir, 'dist', 'main.js')).href);
