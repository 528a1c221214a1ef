// What a release would ship, checked from the workspace's package.json files alone.
//
// The published packages (every workspace that is not private) move together: one version
// for all of them (Changesets' `fixed` group in .changeset/config.json), and each one pins
// its @gatehousejs siblings to exactly that version. A problem is reported when:
//   - a published package's version differs from the others';
//   - a sibling range in dependencies, peerDependencies, optionalDependencies or
//     devDependencies is not that version (npm would fetch the sibling from the registry
//     instead of linking the workspace's, and a published package would pull a
//     mismatched sibling);
//   - a published package would ship a `file:`, `link:`, `workspace:` or `portal:` range
//     in what its users install (dependencies, peerDependencies, optionalDependencies);
//   - a published package lacks the release setup: a `build` script and the `prepack` that
//     runs it unless dist is current (scripts/prepack.mjs),
//     `publishConfig.access: "public"` and `publishConfig.provenance: true`, and no
//     `publishConfig.registry` (it would override the registry a dry run points at).
// And .changeset/config.json must hold the published packages as one `fixed` group, ignore
// every private workspace, release from main and publish with public access.
// `node scripts/releaseManifests.mjs` prints the problems and exits 1 when there are any.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SCOPE = '@gatehousejs/';
const SIBLING_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];
const SHIPPED_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'];
const LOCAL_RANGE = /^(file|link|workspace|portal):/;
/** The prepack of every published package: builds it unless its dist is current. */
export const PREPACK = 'node ../../scripts/prepack.mjs';

/** Every workspace of the repository at `root`: its folder (relative) and its package.json. */
export function workspaceManifests(root) {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return rootManifest.workspaces.map((dir) => ({
    dir,
    manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')),
  }));
}

/** The workspaces that would be published: every one that is not private. */
export const publishedOf = (workspaces) => workspaces.filter((w) => w.manifest.private !== true);

/** The published packages a project installs: all but `@gatehousejs/create`, which `npm create` runs. */
export const installableOf = (workspaces) =>
  publishedOf(workspaces).filter((w) => w.manifest.name !== `${SCOPE}create`);

/**
 * The version every published package shares; undefined when there is none or they differ
 * (which `manifestProblems` reports).
 */
export function workspaceVersion(workspaces) {
  const versions = new Set(publishedOf(workspaces).map((w) => w.manifest.version));
  return versions.size === 1 ? [...versions][0] : undefined;
}

/**
 * Every problem of the workspaces' manifests, as sentences naming the package, the field
 * and the range; [] when a release could ship them as they are.
 */
export function manifestProblems(workspaces) {
  const published = publishedOf(workspaces);
  if (published.length === 0) return ['no workspace is published: every one is private'];
  const problems = [];
  const version = workspaceVersion(workspaces);
  if (version === undefined) {
    const listed = published.map((w) => `${w.manifest.name}@${w.manifest.version}`).join(', ');
    problems.push(`the published packages do not share one version (${listed})`);
  }
  const siblings = new Set(published.map((w) => w.manifest.name));
  for (const { dir, manifest } of workspaces) {
    const name = manifest.name ?? dir;
    const ships = manifest.private !== true;
    for (const field of SIBLING_FIELDS) {
      for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
        if (ships && SHIPPED_FIELDS.includes(field) && LOCAL_RANGE.test(range)) {
          problems.push(`${name}: ${field}["${dep}"] is "${range}", a local range that would ship`);
        } else if (siblings.has(dep) && version !== undefined && range !== version) {
          problems.push(
            `${name}: ${field}["${dep}"] is "${range}", not the workspace's version "${version}"`,
          );
        } else if (dep.startsWith(SCOPE) && !siblings.has(dep) && ships && SHIPPED_FIELDS.includes(field)) {
          problems.push(`${name}: ${field}["${dep}"] names no published package of the workspace`);
        }
      }
    }
    if (ships) problems.push(...releaseSetupProblems(name, manifest));
  }
  return problems;
}

/** The release setup every published package needs (see the file's head). */
function releaseSetupProblems(name, manifest) {
  const problems = [];
  if (manifest.scripts?.prepack !== PREPACK) {
    problems.push(
      `${name}: scripts.prepack must be "${PREPACK}" (today: ${show(manifest.scripts?.prepack)})`,
    );
  }
  if (!manifest.scripts?.build) problems.push(`${name}: scripts.build is missing (prepack runs it)`);
  const config = manifest.publishConfig ?? {};
  if (config.access !== 'public') {
    problems.push(`${name}: publishConfig.access must be "public" (today: ${show(config.access)})`);
  }
  if (config.provenance !== true) {
    problems.push(`${name}: publishConfig.provenance must be true (today: ${show(config.provenance)})`);
  }
  if (config.registry !== undefined) {
    problems.push(`${name}: publishConfig.registry ("${config.registry}") would override the registry given`);
  }
  return problems;
}

/** Every problem of a Changesets config (`.changeset/config.json`) against the workspaces. */
export function changesetProblems(config, workspaces) {
  const problems = [];
  const published = publishedOf(workspaces).map((w) => w.manifest.name);
  const sameSet = (group) =>
    Array.isArray(group) && group.length === published.length && published.every((n) => group.includes(n));
  if (!Array.isArray(config?.fixed) || config.fixed.length !== 1 || !sameSet(config.fixed[0])) {
    problems.push(
      `.changeset/config.json: fixed must be one group of the published packages (${published.join(', ')}); today: ${show(config?.fixed)}`,
    );
  }
  if ((config?.linked ?? []).length > 0) {
    problems.push('.changeset/config.json: linked must be empty (the packages are one fixed group)');
  }
  const ignore = config?.ignore ?? [];
  for (const { manifest } of workspaces) {
    if (manifest.private === true && !ignore.includes(manifest.name)) {
      problems.push(`.changeset/config.json: ignore lacks the private workspace ${manifest.name}`);
    }
  }
  for (const name of ignore.filter((n) => published.includes(n))) {
    problems.push(`.changeset/config.json: ignore holds ${name}, a published package`);
  }
  if (config?.access !== 'public')
    problems.push(`.changeset/config.json: access must be "public"; today: ${show(config?.access)}`);
  if (config?.baseBranch !== 'main') {
    problems.push(`.changeset/config.json: baseBranch must be "main"; today: ${show(config?.baseBranch)}`);
  }
  return problems;
}

const show = (value) => (value === undefined ? 'missing' : JSON.stringify(value));

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(import.meta.dirname, '..');
  const workspaces = workspaceManifests(root);
  const config = JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8'));
  const problems = [...manifestProblems(workspaces), ...changesetProblems(config, workspaces)];
  for (const problem of problems) console.log(`FAIL ${problem}`);
  if (problems.length) process.exit(1);
  const names = publishedOf(workspaces).map((w) => w.manifest.name);
  console.log(`ok   ${names.length} packages at ${workspaceVersion(workspaces)}: ${names.join(', ')}`);
}
