// Builds what some workspace packages need and is out of date, dependencies first: what
// `npm start` runs before the booking server, and what the checks and tests that start a
// built server or bin run first (nothing to do after `npm run build`). A package is out of
// date as `prepack` judges it (scripts/prepack.mjs): its dist missing, incomplete, or older
// than its sources and build files. Dependents are not rebuilt when only a dependency
// changed: builds keep workspace packages external, so they load the dependency's dist.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from './packing.mjs';
import { staleness } from './prepack.mjs';
import { dependencyOrder } from './publishDryRun.mjs';
import { workspaceManifests } from './releaseManifests.mjs';

/** The workspaces `targets` (package names) are, with every workspace they depend on, dependencies first. */
export function buildOrderOf(targets) {
  const workspaces = workspaceManifests(root);
  const byName = new Map(workspaces.map((w) => [w.manifest.name, w]));
  const needed = new Set();
  const need = (name) => {
    const w = byName.get(name);
    if (!w) throw new Error(`${name} is not a workspace package.`);
    if (needed.has(w)) return;
    needed.add(w);
    for (const dep of Object.keys({ ...w.manifest.dependencies, ...w.manifest.peerDependencies }))
      if (byName.has(dep)) need(dep);
  };
  for (const target of targets) need(target);
  return dependencyOrder(workspaces).filter((w) => needed.has(w));
}

/** Builds each package of {@link buildOrderOf} `targets` whose dist is not current; throws when a build fails. */
export function buildCurrent(targets, log = (line) => process.stdout.write(`${line}\n`)) {
  for (const { dir, manifest } of buildOrderOf(targets)) {
    if (!manifest.scripts?.build) continue;
    const reason = staleness(join(root, dir), root);
    if (!reason) continue;
    log(`Building ${manifest.name} (${reason})…`);
    const started = Date.now();
    const run = spawnSync('npm', ['run', 'build', '--silent', '--workspace', manifest.name], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    if (run.status !== 0) {
      throw new Error(
        `The build of ${manifest.name} failed (exit ${run.status ?? run.signal}):\n${run.stdout}${run.stderr}`,
      );
    }
    log(`Built ${manifest.name} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
}
