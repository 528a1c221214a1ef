import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One source file: its path relative to the repository root, and its text. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** A broken rule: which file, which import, and why it is refused. */
export interface Breach {
  readonly file: string;
  readonly specifier: string;
  readonly rule: string;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s*['"]([^'"]+)['"]/g;

/** Every module specifier a file imports or re-exports (static and literal dynamic imports). */
export function specifiersOf(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) found.push((match[1] ?? match[2] ?? match[3]) as string);
  return found;
}

const packageOf = (path: string) => /^packages\/([^/]+)\/src\//.exec(path)?.[1];

/** What each package's sources may import of the sibling packages. */
const SIBLINGS: Readonly<Record<string, readonly string[]>> = {
  core: [],
  presenters: ['core'],
  stores: ['core'],
  guards: ['core'],
  access: ['core'],
  console: ['core', 'access', 'presenters'],
  oauth: ['core', 'access', 'presenters', 'console'],
  testing: ['core', 'presenters', 'guards', 'stores', 'access'],
  create: [],
};

/**
 * The package rules: core imports no sibling; presenters, stores, guards
 * and access import core only (so presenters and stores import no guards);
 * console imports core, access and presenters, never guards or stores;
 * oauth imports those and console, never guards or stores (it takes a store);
 * create imports no sibling (its templates, outside `src`, import the packages);
 * no library imports the example; core's `contract/` and `schema/` import
 * none of its pipeline, transports or stores; the core root entry reaches no
 * `node:` module through its relative imports.
 */
export function checkArchitecture(
  files: readonly SourceFile[],
  coreRoot = 'packages/core/src/index.ts',
): Breach[] {
  const breaches: Breach[] = [];
  const byPath = new Map(files.map((f) => [f.path, f]));
  for (const file of files) {
    const owner = packageOf(file.path);
    if (!owner) continue;
    for (const specifier of specifiersOf(file.text)) {
      if (specifier.includes('example') || specifier.startsWith('../../../examples')) {
        breaches.push({ file: file.path, specifier, rule: 'no library imports the example' });
        continue;
      }
      const sibling = /^@gatehousejs\/([^/]+)/.exec(specifier)?.[1];
      if (sibling && sibling !== owner && !(SIBLINGS[owner] ?? []).includes(sibling)) {
        breaches.push({
          file: file.path,
          specifier,
          rule: `${owner} may import ${SIBLINGS[owner]?.join(', ') || 'no sibling package'}`,
        });
      }
    }
  }
  for (const file of files) breaches.push(...layerBreaches(file));
  // The core root entry and everything it reaches through relative imports: no node: modules.
  const seen = new Set<string>();
  const walk = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const file = byPath.get(path);
    if (!file) return;
    for (const specifier of specifiersOf(file.text)) {
      if (specifier.startsWith('node:')) {
        breaches.push({ file: path, specifier, rule: 'the core root entry stays runtime-neutral' });
      } else if (specifier.startsWith('.')) {
        walk(join(dirname(path), specifier).replace(/\.js$/, '.ts'));
      }
    }
  };
  walk(coreRoot);
  return breaches;
}

/** Core's layers that import nothing above them: the contract (tools, guards, outcomes, the envelope) and the input schemas. */
const LOWER_LAYERS = ['packages/core/src/contract/', 'packages/core/src/schema/'];

/** What a lower layer may not reach: the pipeline, the transports and serving, the stores, the server's assembly. */
const UPPER_LAYERS = [
  'packages/core/src/pipeline/',
  'packages/core/src/serve/',
  'packages/core/src/storage/',
  'packages/core/src/builtins/',
  'packages/core/src/otel/',
  'packages/core/src/server.ts',
  'packages/core/src/gatehouse.ts',
  'packages/core/src/confirm.ts',
  'packages/core/src/approvals.ts',
  'packages/core/src/http.ts',
  'packages/core/src/node.ts',
  'packages/core/src/stdio.ts',
  'packages/core/src/sdkV1.ts',
  'packages/core/src/index.ts',
];

/**
 * The layer rule inside core: `contract/` and `schema/` are what the
 * pipeline, transports and stores build on, so nothing in them imports
 * those (a relative import resolving into an upper layer is refused).
 */
function layerBreaches(file: SourceFile): Breach[] {
  if (!LOWER_LAYERS.some((layer) => file.path.startsWith(layer))) return [];
  const breaches: Breach[] = [];
  for (const specifier of specifiersOf(file.text)) {
    if (!specifier.startsWith('.')) continue;
    const target = join(dirname(file.path), specifier).replace(/\.js$/, '.ts');
    if (UPPER_LAYERS.some((layer) => target === layer || target.startsWith(layer))) {
      breaches.push({
        file: file.path,
        specifier,
        rule: 'core contract/ and schema/ import no pipeline, transport or store',
      });
    }
  }
  return breaches;
}

/** Every `.ts` file under `packages/*\/src`, test files excepted. */
export function librarySources(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        files.push({ path: relative(root, full).split('\\').join('/'), text: readFileSync(full, 'utf8') });
      }
    }
  };
  for (const pkg of readdirSync(join(root, 'packages'))) {
    const src = resolve(root, 'packages', pkg, 'src');
    try {
      visit(src);
    } catch {
      // a package without sources
    }
  }
  return files;
}

/** The named guards, one file each in `packages/guards/src`, and the factories each file exports. */
export const NAMED_GUARDS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'tenant.ts': ['tenantGuard'],
  'rights.ts': ['rightsGuard'],
  'killSwitch.ts': ['killSwitchGuards', 'globalKillSwitchGuard', 'tenantSwitchGuard'],
  'rate.ts': ['rateGuard'],
  'replay.ts': ['replayGuard'],
  'duplicate.ts': ['duplicateGuard'],
  'version.ts': ['versionGuard'],
  'batchCount.ts': ['batchCountGuard'],
  'confirm.ts': ['confirmGuard'],
  'untrustedText.ts': ['untrustedTextGuard'],
});

/** A source's code without its comments (docs may show a guard; code may not be one). */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** A guard object written out in code: `kind: '<a guard kind>'`. */
const GUARD_OBJECT = /\bkind:\s*'(admission|visibility|rate|call|claim|unit|outward|output)'/;

/**
 * The guard rules: core holds the contract, the stage runner and memory
 * stores, and no guard implementation (no guard object is written in its
 * sources); every named guard is a file of `packages/guards/src` exporting
 * its factories, and nothing else there but `standard.ts` and `index.ts`.
 */
export function guardBreaches(files: readonly SourceFile[]): Breach[] {
  const breaches: Breach[] = [];
  for (const file of files) {
    const code = withoutComments(file.text);
    if (file.path.startsWith('packages/core/src/') && GUARD_OBJECT.test(code))
      breaches.push({
        file: file.path,
        specifier: GUARD_OBJECT.exec(code)![0],
        rule: 'core holds no guard implementation',
      });
  }
  const inGuards = files.filter((f) => /^packages\/guards\/src\/[^/]+\.ts$/.test(f.path));
  const names = new Set(inGuards.map((f) => f.path.slice('packages/guards/src/'.length)));
  for (const [name, factories] of Object.entries(NAMED_GUARDS)) {
    const file = inGuards.find((f) => f.path.endsWith(`/${name}`));
    if (!file) {
      breaches.push({
        file: `packages/guards/src/${name}`,
        specifier: '',
        rule: 'each named guard is a file of packages/guards',
      });
      continue;
    }
    for (const factory of factories) {
      if (!new RegExp(`export function ${factory}\\b`).test(file.text))
        breaches.push({
          file: file.path,
          specifier: factory,
          rule: 'each named guard file exports its factories',
        });
    }
  }
  for (const name of names) {
    if (!(name in NAMED_GUARDS) && name !== 'standard.ts' && name !== 'index.ts')
      breaches.push({
        file: `packages/guards/src/${name}`,
        specifier: '',
        rule: 'packages/guards holds the named guards only',
      });
  }
  return breaches;
}
