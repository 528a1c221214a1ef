import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildOrderOf } from '../scripts/buildCurrent.mjs';
import { documentedRoute } from '../scripts/localRouteCheck.mjs';
import { targetOf } from '../scripts/packLocal.mjs';
import { declaredOutputs, staleness } from '../scripts/prepack.mjs';
import {
  dependencyOrder,
  listingProblems,
  REFUSING_REGISTRY,
  refusingRegistryFlags,
  trailingJson,
} from '../scripts/publishDryRun.mjs';
import { installableOf, publishedOf, workspaceManifests } from '../scripts/releaseManifests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

const manifest = {
  name: '@gatehousejs/guards',
  version: '0.1.0',
  main: './dist/index.cjs',
  types: './dist/index.d.cts',
  exports: {
    '.': {
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    },
    './package.json': './package.json',
  },
};

/** A package folder with `src/index.ts`, and `dist` holding `outputs`, for `staleness`. */
function packageFolder(outputs: readonly string[]) {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-prepack-'));
  const dir = join(folder, 'packages/guards');
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(folder, 'tsup.shared.ts'), '');
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'src/index.ts'), 'export {};');
  for (const output of outputs) writeFileSync(join(dir, output), '');
  const at = (path: string, seconds: number) => utimesSync(join(dir, path), seconds, seconds);
  for (const input of ['package.json', 'src/index.ts', '../../tsup.shared.ts']) at(input, 1_000);
  for (const output of outputs) at(output, 2_000);
  return { folder, dir, at, [Symbol.dispose]: () => rmSync(folder, { recursive: true, force: true }) };
}

describe('buildOrderOf', () => {
  it('lists what a package needs, dependencies first, and nothing it does not need', () => {
    const names = buildOrderOf(['@gatehousejs/example-booking']).map((w) => w.manifest.name);
    expect(names[0]).toBe('@gatehousejs/core');
    expect(names.at(-1)).toBe('@gatehousejs/example-booking');
    expect(names).toContain('@gatehousejs/oauth');
    expect(names).not.toContain('@gatehousejs/create');
    expect(names.indexOf('@gatehousejs/console')).toBeGreaterThan(names.indexOf('@gatehousejs/access'));
    expect(() => buildOrderOf(['@gatehousejs/nothing'])).toThrow(
      '@gatehousejs/nothing is not a workspace package.',
    );
  });
});

describe('declaredOutputs', () => {
  it('lists every dist file the exports map, main and types point at, once each', () => {
    expect(declaredOutputs(manifest).sort()).toEqual([
      'dist/index.cjs',
      'dist/index.d.cts',
      'dist/index.d.ts',
      'dist/index.js',
    ]);
  });
});

describe('staleness', () => {
  const built = ['dist/index.cjs', 'dist/index.d.cts', 'dist/index.d.ts', 'dist/index.js'];

  it('finds a dist newer than every input current', () => {
    using pkg = packageFolder(built);
    expect(staleness(pkg.dir, pkg.folder)).toBeUndefined();
  });

  it('builds a package without dist', () => {
    using pkg = packageFolder([]);
    expect(staleness(pkg.dir, pkg.folder)).toBe('no dist');
  });

  it('builds a dist that lacks a declared file', () => {
    using pkg = packageFolder(built.filter((f) => f !== 'dist/index.cjs'));
    expect(staleness(pkg.dir, pkg.folder)).toBe('dist lacks dist/index.cjs');
  });

  it.each([
    ['a source', 'src/index.ts'],
    ['package.json', 'package.json'],
    ['the shared build config', '../../tsup.shared.ts'],
  ])('builds again when %s is newer than dist', (_, input) => {
    using pkg = packageFolder(built);
    pkg.at(input, 3_000);
    expect(staleness(pkg.dir, pkg.folder)).toBe('sources newer than dist');
  });
});

describe('listingProblems', () => {
  const complete = [
    'CHANGELOG.md',
    'README.md',
    'package.json',
    'dist/index.cjs',
    'dist/index.cjs.map',
    'dist/index.d.cts',
    'dist/index.d.ts',
    'dist/index.js',
  ];

  it('passes a listing with every declared output, README, CHANGELOG and package.json', () => {
    expect(listingProblems(manifest, complete)).toEqual([]);
  });

  it('names an empty build (a tarball packed before any build) and sources that would ship', () => {
    expect(listingProblems(manifest, ['README.md', 'package.json', 'src/index.ts'])).toEqual([
      'dist/index.d.ts missing',
      'dist/index.js missing',
      'dist/index.d.cts missing',
      'dist/index.cjs missing',
      'CHANGELOG.md missing',
      'src/index.ts would ship outside dist/',
    ]);
  });

  it('lets a folder the manifest names in files ship beside dist/, and nothing else', () => {
    const withTemplates = { ...manifest, files: ['dist', 'templates', 'CHANGELOG.md'] };
    expect(listingProblems(withTemplates, [...complete, 'templates/src/app.ts'])).toEqual([]);
    expect(listingProblems(withTemplates, [...complete, 'templatesX/app.ts', 'src/a.ts'])).toEqual([
      'templatesX/app.ts would ship outside dist/',
      'src/a.ts would ship outside dist/',
    ]);
  });
});

describe('trailingJson', () => {
  it('reads the JSON that ends npm output, past build lines and braces', () => {
    const out = `> prepack\n{\nnot json\nCJS dist/index.cjs 1 KB\n{\n  "@gatehousejs/core": { "id": "@gatehousejs/core@0.1.0" }\n}\n`;
    expect(trailingJson(out)).toEqual({ '@gatehousejs/core': { id: '@gatehousejs/core@0.1.0' } });
  });

  it('fails when no JSON ends the output', () => {
    expect(() => trailingJson('npm error code E404\n')).toThrow(/no JSON in npm's output/);
  });
});

describe('refusingRegistryFlags', () => {
  it('points the registry and the scope registry at an address that refuses, without retries', () => {
    expect(REFUSING_REGISTRY).toBe('http://127.0.0.1:9/');
    expect(refusingRegistryFlags()).toEqual([
      '--registry=http://127.0.0.1:9/',
      '--@gatehousejs:registry=http://127.0.0.1:9/',
      '--fetch-retries=0',
    ]);
  });
});

describe('dependencyOrder', () => {
  it('puts every published package after the workspace packages it depends on', () => {
    const order = dependencyOrder(publishedOf(workspaceManifests(root)));
    const names = order.map((w) => w.manifest.name ?? '');
    expect(names).toHaveLength(9);
    for (const [position, { manifest: m }] of order.entries()) {
      const siblings = Object.keys({ ...m.dependencies, ...m.peerDependencies }).filter((d) =>
        names.includes(d),
      );
      for (const sibling of siblings)
        expect(names.indexOf(sibling), `${m.name} after ${sibling}`).toBeLessThan(position);
    }
    expect(names[0]).toBe('@gatehousejs/core');
  });

  it('packs for a project every published package but the create command', () => {
    const names = (list: { manifest: { name?: string } }[]) => list.map((w) => w.manifest.name);
    const workspaces = workspaceManifests(root);
    expect(names(publishedOf(workspaces))).toContain('@gatehousejs/create');
    expect(names(installableOf(workspaces))).not.toContain('@gatehousejs/create');
    expect(installableOf(workspaces)).toHaveLength(publishedOf(workspaces).length - 1);
  });

  it('refuses a dependency cycle, naming it', () => {
    const a = { dir: 'a', manifest: { name: 'a', dependencies: { b: '1.0.0' } } };
    const b = { dir: 'b', manifest: { name: 'b', dependencies: { a: '1.0.0' } } };
    expect(() => dependencyOrder([a, b])).toThrow('dependency cycle: a -> b -> a');
  });
});

describe('targetOf', () => {
  it('resolves the tarball folder from where npm was run', () => {
    expect(targetOf(['../app/vendor'], '/home/dev/gatehouse')).toBe(resolve('/home/dev/app/vendor'));
  });

  it('refuses a missing folder, extra words and flags with the usage line', () => {
    for (const args of [[], ['a', 'b'], ['--help']]) {
      expect(() => targetOf(args, root)).toThrow(/^Usage: npm run pack:local -- <target-dir>/);
    }
  });

  it('refuses a file as the folder', () => {
    expect(() => targetOf(['package.json'], root)).toThrow('package.json exists and is not a folder.');
  });
});

describe('documentedRoute', () => {
  it("reads docs/install.md's one pack:local line: pack into the project, then install the tarballs", () => {
    const line = documentedRoute(readFileSync(join(root, 'docs/install.md'), 'utf8'));
    expect(line).toMatch(
      /^npm run pack:local -- \.\.\/my-app\/(\S+) && cd \.\.\/my-app && npm install \.\/\1\/\*\.tgz /,
    );
  });

  it('refuses docs without the line, or with two', () => {
    const block = (line: string) => `\`\`\`sh\n${line}\n\`\`\`\n`;
    expect(() => documentedRoute(block('npm install @gatehousejs/core'))).toThrow('has 0 pack:local lines');
    const line = 'npm run pack:local -- ../my-app/packs && cd ../my-app && npm install ./packs/*.tgz';
    expect(() => documentedRoute(block(line) + block(line))).toThrow('has 2 pack:local lines');
    expect(() => documentedRoute(block('npm run pack:local -- /tmp/packs'))).toThrow('names no ../my-app');
  });
});
