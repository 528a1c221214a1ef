import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** `import`/`export … from` statements (`type` marks type-only ones), side-effect and dynamic imports. */
const STATEMENTS =
  /^(?:import|export)(\s+type)?\b[^;]*?\bfrom\s+'([^']+)'|^import\s+'([^']+)'|\bimport\('([^']+)'\)/gm;

/**
 * Every package the source file at `path` imports, following its relative
 * imports: those that load code, and with `types` type-only ones too.
 */
function importedPackages(path: string, types: boolean, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(path)) return found;
  seen.add(path);
  for (const match of read(path).matchAll(STATEMENTS)) {
    const typeOnly = match[1] !== undefined;
    const specifier = match[2] ?? match[3] ?? match[4] ?? '';
    if (typeOnly && !types) continue;
    if (specifier.startsWith('.')) {
      const base = new URL(specifier.replace(/\.js$/, ''), new URL(path, root)).pathname;
      const file = existsSync(`${base}.ts`) ? `${base}.ts` : `${base}/index.ts`;
      const relative = file.slice(new URL(root).pathname.length);
      for (const name of importedPackages(relative, types, seen)) found.add(name);
    } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
      found.add(packageOf(specifier));
    }
  }
  return found;
}

/** The source file of an entry: `@gatehousejs/core/sdk-v1` → `packages/core/src/sdkV1.ts`. */
function sourceOf(entry: string) {
  const [, pkg = '', sub] = entry.match(/^@gatehousejs\/([^/]+)(?:\/(.+))?$/) ?? [];
  const file = sub ? sub.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) : 'index';
  return { pkg, file: `packages/${pkg}/src/${file}.ts` };
}

interface Manifest {
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The rows of install.md's entry table: the entry and its "install as well" cell. */
const entryRows = () =>
  [...read('docs/install.md').matchAll(/^\| `(@gatehousejs\/[^`]+)` +\|[^|]+\|(.+)\|$/gm)].map((m) => ({
    entry: m[1] ?? '',
    install: m[2] ?? '',
  }));

describe('docs/install.md', () => {
  it('names, for every entry, the peer dependencies it loads and none it never imports', () => {
    const rows = entryRows();
    expect(rows.map((r) => r.entry)).toEqual(
      expect.arrayContaining([
        '@gatehousejs/core/node',
        '@gatehousejs/stores',
        '@gatehousejs/stores/postgres',
      ]),
    );
    for (const { entry, install } of rows) {
      const { pkg, file } = sourceOf(entry);
      const manifest = JSON.parse(read(`packages/${pkg}/package.json`)) as Manifest;
      const peers = Object.keys(manifest.peerDependencies ?? {});
      const loaded = importedPackages(file, false);
      const referenced = importedPackages(file, true);
      const named = peers.filter((peer) => install.includes(`\`${peer}\``));
      const bare = (peer: string) => peer.replace(/^@types\//, '');
      expect(
        named.filter((peer) => !referenced.has(bare(peer))),
        `${entry} names peers it never imports`,
      ).toEqual([]);
      expect(
        peers.filter((peer) => loaded.has(peer) && !named.includes(peer)),
        `${entry} loads peers its row does not name`,
      ).toEqual([]);
      for (const peer of named.filter((p) => manifest.peerDependenciesMeta?.[p]?.optional)) {
        expect(install, `${entry}: ${peer} is an optional peer`).not.toMatch(/installed with it/);
      }
    }
  });
});

describe('docs/server-options.md', () => {
  it('documents the services factory with the signature createGatehouse declares', () => {
    // the declaration as one line, however the formatter wraps it
    const declared = read('packages/core/src/gatehouse.ts')
      .match(/readonly services: (\([\s\S]+?\) => TServices);/)?.[1]
      ?.replace(/\s+/g, ' ')
      .replace(/\( /g, '(')
      .replace(/,? \)/g, ')');
    expect(declared).toContain('unit');
    // a pipe inside a table cell is written `\|`, code spans included
    const row = read('docs/server-options.md')
      .split('\n')
      .find((line) => line.startsWith('| `services`'))
      ?.replaceAll('\\|', '|');
    expect(row).toContain(`\`${declared}\``);
  });
});
