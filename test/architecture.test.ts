import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkArchitecture,
  guardBreaches,
  librarySources,
  NAMED_GUARDS,
  specifiersOf,
} from './architecture.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('package architecture', () => {
  it('holds over every library source', () => {
    const files = librarySources(root);
    expect(files.length).toBeGreaterThan(50);
    expect(checkArchitecture(files)).toEqual([]);
  });

  it('keeps every named guard in a file of packages/guards, and no guard implementation in core', () => {
    expect(guardBreaches(librarySources(root))).toEqual([]);
  });

  it('refuses a guard written in core, a named guard missing its file or factory, and a stray file in guards', () => {
    const guardFiles = Object.entries(NAMED_GUARDS).map(([name, factories]) => ({
      path: `packages/guards/src/${name}`,
      text: factories.map((f) => `export function ${f}() {}`).join('\n'),
    }));
    expect(guardBreaches(guardFiles)).toEqual([]);
    const rules = (files: { path: string; text: string }[]) => guardBreaches(files).map((b) => b.rule);
    expect(
      rules([
        ...guardFiles,
        { path: 'packages/core/src/pipeline/x.ts', text: "const g = { kind: 'claim', name: 'x' };" },
      ]),
    ).toEqual(['core holds no guard implementation']);
    expect(rules(guardFiles.filter((f) => !f.path.endsWith('/replay.ts')))).toEqual([
      'each named guard is a file of packages/guards',
    ]);
    expect(
      rules(
        guardFiles.map((f) =>
          f.path.endsWith('/killSwitch.ts') ? { ...f, text: 'export function killSwitchGuards() {}' } : f,
        ),
      ),
    ).toEqual(['each named guard file exports its factories', 'each named guard file exports its factories']);
    expect(rules([...guardFiles, { path: 'packages/guards/src/helpers.ts', text: '' }])).toEqual([
      'packages/guards holds the named guards only',
    ]);
  });

  it('finds static, re-exported and dynamic imports', () => {
    const text = `import { a } from './a.js';\nexport { b } from "@gatehousejs/guards";\nconst c = await import('node:fs');\nimport type { D } from '../d.js';`;
    expect(specifiersOf(text)).toEqual(['./a.js', '@gatehousejs/guards', 'node:fs', '../d.js']);
  });

  it('refuses each broken rule (mutations of a clean tree)', () => {
    const clean = [
      { path: 'packages/core/src/index.ts', text: "export { x } from './x.js';" },
      { path: 'packages/core/src/x.ts', text: 'export const x = 1;' },
      { path: 'packages/presenters/src/index.ts', text: "import { x } from '@gatehousejs/core';" },
    ];
    expect(checkArchitecture(clean)).toEqual([]);
    const rules = (files: typeof clean) => checkArchitecture(files).map((b) => b.rule);
    expect(
      rules([
        ...clean.slice(0, 1),
        { path: 'packages/core/src/x.ts', text: "import 'node:crypto';" },
        clean[2]!,
      ]),
    ).toEqual(['the core root entry stays runtime-neutral']);
    expect(
      rules([...clean, { path: 'packages/core/src/y.ts', text: "import { s } from '@gatehousejs/stores';" }]),
    ).toEqual(['core may import no sibling package']);
    expect(
      rules([
        ...clean,
        { path: 'packages/presenters/src/y.ts', text: "import { g } from '@gatehousejs/guards';" },
      ]),
    ).toEqual(['presenters may import core']);
    expect(
      rules([
        ...clean,
        { path: 'packages/stores/src/y.ts', text: "import { g } from '@gatehousejs/guards';" },
      ]),
    ).toEqual(['stores may import core']);
    expect(
      rules([
        ...clean,
        { path: 'packages/guards/src/y.ts', text: "import { b } from '@gatehousejs/example-booking';" },
      ]),
    ).toEqual(['no library imports the example']);
    const layer = 'core contract/ and schema/ import no pipeline, transport or store';
    for (const [path, specifier] of [
      ['packages/core/src/contract/tool.ts', '../pipeline/replay.js'],
      ['packages/core/src/contract/envelope.ts', '../storage/pendingActionStore.js'],
      ['packages/core/src/schema/compileInput.ts', '../pipeline/caps.js'],
      ['packages/core/src/contract/guard.ts', '../serve/report.js'],
    ] as const) {
      expect(rules([...clean, { path, text: `import { y } from '${specifier}';` }]), path).toEqual([layer]);
    }
    // the contract may import core's base modules and its own files
    expect(
      rules([
        ...clean,
        {
          path: 'packages/core/src/contract/tool.ts',
          text: "import { e } from '../errors.js';\nimport { g } from './guard.js';",
        },
      ]),
    ).toEqual([]);
    // a node: import outside the root entry's reach is allowed (the /node entry)
    expect(rules([...clean, { path: 'packages/core/src/node.ts', text: "import 'node:http';" }])).toEqual([]);
  });
});
