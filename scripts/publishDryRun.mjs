// Publish dry run: what `changeset publish` would send to the registry, proven without
// sending anything.
//   1. the manifest check (scripts/releaseManifests.mjs): one version, sibling ranges pinned
//      to it, no local range that would ship, prepack and publishConfig in place, the
//      Changesets config's fixed group;
//   2. a clean copy of the workspace's published packages (no dist anywhere; node_modules
//      linked, the @gatehousejs scope linked to the copies) in a temporary folder;
//   3. `npm publish --dry-run` in each copy, dependencies first, so each package's own
//      `prepack` builds it from its sources, as it would on a release; the registry, the
//      scope's registry included, is an address that refuses connections, so nothing can be
//      published even if the dry-run flag were lost or credentials were present;
//   4. each listing must hold every file the package.json points at (exports, main, types,
//      module) and README.md, CHANGELOG.md and package.json, and nothing outside dist/
//      besides them and the folders its `files` names (no sources, tests or maps of another folder).
// Prints one line per package; exits 1 naming every failure. KEEP=1 keeps the copy.
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { REFUSING_REGISTRY, reporter, root } from './packing.mjs';
import { declaredOutputs } from './prepack.mjs';
import {
  changesetProblems,
  manifestProblems,
  publishedOf,
  SCOPE,
  workspaceManifests,
} from './releaseManifests.mjs';

const run = promisify(execFile);

export { REFUSING_REGISTRY };

/** Root files a package's prepack and build read (`../../tsup.shared.js`, `../../tsconfig.base.json`). */
const SHARED_FILES = ['tsup.shared.ts', 'tsconfig.base.json', 'scripts/prepack.mjs'];
/** Files a tarball may hold outside dist/. */
const BESIDE_DIST = new Set(['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE']);
const { report, finish } = reporter('publish dry run');

/** The npm flags that point every registry of a publish at an address that refuses. */
export const refusingRegistryFlags = () => [
  `--registry=${REFUSING_REGISTRY}`,
  `--${SCOPE.slice(0, -1)}:registry=${REFUSING_REGISTRY}`,
  '--fetch-retries=0',
];

/** Published workspaces, each after the workspace packages it depends on. */
export function dependencyOrder(workspaces) {
  const byName = new Map(workspaces.map((w) => [w.manifest.name, w]));
  const order = [];
  const visit = (w, trail) => {
    if (order.includes(w)) return;
    if (trail.includes(w.manifest.name))
      throw new Error(`dependency cycle: ${[...trail, w.manifest.name].join(' -> ')}`);
    const deps = Object.keys({ ...w.manifest.dependencies, ...w.manifest.peerDependencies });
    for (const dep of deps) {
      const sibling = byName.get(dep);
      if (sibling) visit(sibling, [...trail, w.manifest.name]);
    }
    order.push(w);
  };
  for (const w of workspaces) visit(w, []);
  return order;
}

/**
 * A copy of the published packages without their dist, beside the shared build files,
 * with a node_modules that links the workspace's dependencies and the scope to the copies.
 */
function cleanCopy(published) {
  const copy = mkdtempSync(join(tmpdir(), 'gatehouse-publish-'));
  for (const file of SHARED_FILES) cpSync(join(root, file), join(copy, file), { recursive: true });
  const modules = join(copy, 'node_modules');
  mkdirSync(join(modules, SCOPE), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (`${entry}/` === SCOPE) continue;
    symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
  for (const { dir, manifest } of published) {
    const from = join(root, dir);
    cpSync(from, join(copy, dir), {
      recursive: true,
      filter: (path) => !/^(dist|node_modules)$/.test(path.slice(from.length + 1).split('/')[0] ?? ''),
    });
    if (existsSync(join(from, 'node_modules')))
      symlinkSync(join(from, 'node_modules'), join(copy, dir, 'node_modules'));
    symlinkSync(join(copy, dir), join(modules, manifest.name));
  }
  return copy;
}

/** The JSON document that ends npm's output (build scripts print before it). */
export function trailingJson(stdout) {
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i] !== '{' && lines[i] !== '[') continue;
    try {
      return JSON.parse(lines.slice(i).join('\n'));
    } catch {
      // a brace printed by a build script: look further up
    }
  }
  throw new Error(`no JSON in npm's output:\n${stdout.slice(-2000)}`);
}

/** What a publish listing lacks or holds too much of, for the package `manifest`. */
export function listingProblems(manifest, files) {
  const listed = new Set(files);
  const missing = [...declaredOutputs(manifest), ...BESIDE_DIST].filter(
    (path) => path !== 'LICENSE' && !listed.has(path),
  );
  // folders the manifest ships on purpose besides dist/ (the create command's templates)
  const shipped = (manifest.files ?? [])
    .filter((entry) => entry !== 'dist' && !BESIDE_DIST.has(entry) && !/[*.]/.test(entry))
    .map((entry) => `${entry.replace(/\/$/, '')}/`);
  const stray = files.filter(
    (path) =>
      !path.startsWith('dist/') &&
      !BESIDE_DIST.has(path) &&
      !shipped.some((folder) => path.startsWith(folder)),
  );
  return [
    ...missing.map((path) => `${path} missing`),
    ...stray.map((path) => `${path} would ship outside dist/`),
  ];
}

async function dryRun(copy, { dir, manifest }) {
  const started = Date.now();
  const label = `npm publish --dry-run ${manifest.name}`;
  try {
    const { stdout, stderr } = await run(
      'npm',
      ['publish', '--dry-run', '--json', '--tag=latest', ...refusingRegistryFlags()],
      { cwd: join(copy, dir), maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
    );
    const result = trailingJson(stdout);
    const info = result[manifest.name] ?? result;
    const files = (info.files ?? []).map((f) => f.path);
    const problems = listingProblems(manifest, files);
    if (info.id !== `${manifest.name}@${manifest.version}`) problems.push(`published as ${info.id}`);
    if (!stderr.includes(`Publishing to ${REFUSING_REGISTRY}`))
      problems.push('the refusing registry was not the target');
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const detail = problems.length
      ? problems.join('; ')
      : `built by prepack from a clean copy, ${files.length} files (${declaredOutputs(manifest).length} declared outputs), ${seconds} s`;
    report(problems.length === 0, label, detail);
  } catch (error) {
    const out = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
    report(false, label, `\n${out || error.message}`);
  }
}

async function main() {
  const started = Date.now();
  const workspaces = workspaceManifests(root);
  const config = JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8'));
  const problems = [...manifestProblems(workspaces), ...changesetProblems(config, workspaces)];
  for (const problem of problems) report(false, problem);
  if (problems.length === 0) {
    const names = publishedOf(workspaces).length;
    report(true, 'manifests and .changeset/config.json', `${names} packages, one version, one fixed group`);
  }
  const published = dependencyOrder(publishedOf(workspaces));
  const copy = cleanCopy(published);
  try {
    for (const w of published) await dryRun(copy, w);
  } finally {
    if (process.env.KEEP) console.log(`kept ${copy}`);
    else rmSync(copy, { recursive: true, force: true });
  }
  finish(started, 'nothing was published');
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
