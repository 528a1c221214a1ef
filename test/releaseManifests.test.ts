import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  changesetProblems,
  type Manifest,
  manifestProblems,
  PREPACK,
  publishedOf,
  type Workspace,
  workspaceManifests,
  workspaceVersion,
} from '../scripts/releaseManifests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const changesetConfig = () => JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8'));

const releaseSetup = {
  scripts: { build: 'tsup', prepack: PREPACK },
  publishConfig: { access: 'public', provenance: true },
};

/** A small workspace as the repository has it: two published packages and a private example. */
function workspace(changes: Record<string, Partial<Manifest>> = {}): Workspace[] {
  const base: Record<string, Manifest> = {
    'packages/core': { name: '@gatehousejs/core', version: '0.3.0', ...releaseSetup },
    'packages/guards': {
      name: '@gatehousejs/guards',
      version: '0.3.0',
      ...releaseSetup,
      dependencies: { '@gatehousejs/core': '0.3.0', ulid: '^3.0.2' },
      devDependencies: { '@gatehousejs/core': '0.3.0' },
    },
    'examples/booking': {
      name: '@gatehousejs/example-booking',
      version: '0.1.0',
      private: true,
      dependencies: { '@gatehousejs/core': '0.3.0', '@gatehousejs/guards': '0.3.0' },
    },
  };
  return Object.entries(base).map(([dir, manifest]) => ({ dir, manifest: { ...manifest, ...changes[dir] } }));
}

describe('manifestProblems', () => {
  it('passes the workspace as it is', () => {
    const workspaces = workspaceManifests(root);
    expect(publishedOf(workspaces).map((w) => w.manifest.name)).toEqual(
      expect.arrayContaining(['@gatehousejs/core', '@gatehousejs/testing']),
    );
    expect(publishedOf(workspaces).some((w) => w.manifest.name === '@gatehousejs/example-booking')).toBe(
      false,
    );
    expect(manifestProblems(workspaces)).toEqual([]);
  });

  it('passes a consistent small workspace and reads its version', () => {
    expect(manifestProblems(workspace())).toEqual([]);
    expect(workspaceVersion(workspace())).toBe('0.3.0');
  });

  it('refuses a sibling dependency range that is not the workspace version, naming package and range', () => {
    const problems = manifestProblems(
      workspace({ 'packages/guards': { dependencies: { '@gatehousejs/core': '^0.3.0' } } }),
    );
    expect(problems).toEqual([
      '@gatehousejs/guards: dependencies["@gatehousejs/core"] is "^0.3.0", not the workspace\'s version "0.3.0"',
    ]);
  });

  it('refuses a stale sibling range in peerDependencies, devDependencies and a private workspace', () => {
    const problems = manifestProblems(
      workspace({
        'packages/guards': {
          peerDependencies: { '@gatehousejs/core': '0.2.0' },
          devDependencies: { '@gatehousejs/core': '0.2.9' },
        },
        'examples/booking': { dependencies: { '@gatehousejs/guards': '0.2.0' } },
      }),
    );
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^@gatehousejs\/guards: peerDependencies\["@gatehousejs\/core"\] is "0.2.0"/);
    expect(problems[1]).toMatch(/^@gatehousejs\/guards: devDependencies\["@gatehousejs\/core"\] is "0.2.9"/);
    expect(problems[2]).toMatch(
      /^@gatehousejs\/example-booking: dependencies\["@gatehousejs\/guards"\] is "0.2.0"/,
    );
  });

  it.each([['file:../core'], ['workspace:*'], ['link:../core'], ['portal:../core']])(
    'refuses a %s range that would ship',
    (range) => {
      const problems = manifestProblems(
        workspace({ 'packages/guards': { dependencies: { '@gatehousejs/core': range, ulid: '^3.0.2' } } }),
      );
      expect(problems).toEqual([
        `@gatehousejs/guards: dependencies["@gatehousejs/core"] is "${range}", a local range that would ship`,
      ]);
    },
  );

  it('refuses a local range to a third-party package in peerDependencies, not in a private workspace', () => {
    const problems = manifestProblems(
      workspace({
        'packages/core': { peerDependencies: { zod: 'file:../../vendor/zod' } },
        'examples/booking': { dependencies: { '@gatehousejs/core': '0.3.0', zod: 'file:../vendor/zod' } },
      }),
    );
    expect(problems).toEqual([
      '@gatehousejs/core: peerDependencies["zod"] is "file:../../vendor/zod", a local range that would ship',
    ]);
  });

  it('refuses published packages at different versions, naming each', () => {
    const problems = manifestProblems(workspace({ 'packages/guards': { version: '0.3.1' } }));
    expect(problems).toEqual([
      'the published packages do not share one version (@gatehousejs/core@0.3.0, @gatehousejs/guards@0.3.1)',
    ]);
    expect(workspaceVersion(workspace({ 'packages/guards': { version: '0.3.1' } }))).toBeUndefined();
  });

  it('refuses a dependency on a scope package the workspace does not publish', () => {
    const problems = manifestProblems(
      workspace({
        'packages/guards': { dependencies: { '@gatehousejs/core': '0.3.0', '@gatehousejs/gaurds': '0.3.0' } },
      }),
    );
    expect(problems).toEqual([
      '@gatehousejs/guards: dependencies["@gatehousejs/gaurds"] names no published package of the workspace',
    ]);
  });

  it('refuses a published package without its prepack, public access, provenance, or with a registry of its own', () => {
    const problems = manifestProblems(
      workspace({
        'packages/core': {
          scripts: { build: 'tsup', prepack: 'echo' },
          publishConfig: { access: 'restricted', registry: 'https://registry.example' },
        },
      }),
    );
    expect(problems).toEqual([
      `@gatehousejs/core: scripts.prepack must be "${PREPACK}" (today: "echo")`,
      '@gatehousejs/core: publishConfig.access must be "public" (today: "restricted")',
      '@gatehousejs/core: publishConfig.provenance must be true (today: missing)',
      '@gatehousejs/core: publishConfig.registry ("https://registry.example") would override the registry given',
    ]);
  });

  it('reads the manifests of a workspace on disk and names the bad one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-manifests-'));
    try {
      const bad = workspace({ 'packages/guards': { dependencies: { '@gatehousejs/core': 'file:../core' } } });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ workspaces: bad.map((w) => w.dir) }));
      for (const { dir: folder, manifest } of bad) {
        mkdirSync(join(dir, folder), { recursive: true });
        writeFileSync(join(dir, folder, 'package.json'), JSON.stringify(manifest));
      }
      expect(manifestProblems(workspaceManifests(dir))).toEqual([
        '@gatehousejs/guards: dependencies["@gatehousejs/core"] is "file:../core", a local range that would ship',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('changesetProblems', () => {
  it('passes .changeset/config.json against the workspace', () => {
    expect(changesetProblems(changesetConfig(), workspaceManifests(root))).toEqual([]);
  });

  it('refuses a fixed group that misses a published package, a linked group, and a wrong base branch', () => {
    const config = {
      ...changesetConfig(),
      fixed: [['@gatehousejs/core']],
      linked: [['@gatehousejs/core', '@gatehousejs/guards']],
      baseBranch: 'master',
    };
    const problems = changesetProblems(config, workspace());
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(
      /^\.changeset\/config\.json: fixed must be one group of the published packages/,
    );
    expect(problems[1]).toBe(
      '.changeset/config.json: linked must be empty (the packages are one fixed group)',
    );
    expect(problems[2]).toBe('.changeset/config.json: baseBranch must be "main"; today: "master"');
  });

  it('refuses a private workspace left out of ignore, a published one in it, and restricted access', () => {
    const config = {
      fixed: [['@gatehousejs/core', '@gatehousejs/guards']],
      ignore: ['@gatehousejs/guards'],
      access: 'restricted',
      baseBranch: 'main',
    };
    expect(changesetProblems(config, workspace())).toEqual([
      '.changeset/config.json: ignore lacks the private workspace @gatehousejs/example-booking',
      '.changeset/config.json: ignore holds @gatehousejs/guards, a published package',
      '.changeset/config.json: access must be "public"; today: "restricted"',
    ]);
  });
});
