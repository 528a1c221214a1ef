import { describe, expect, it } from 'vitest';
import { keepVariantLines, pointAtStore, renderTemplate, type Variant } from '../src/internal/render.js';

const sqliteConsole: Variant = { store: 'sqlite', console: true, name: 'desk' };
const memoryAlone: Variant = { store: 'memory', console: false, name: 'desk' };

const TEMPLATE = `a
// #if console
b
// #endif
  // #if !console
c
  // #endif
<!-- #if sqlite|postgres -->
d
<!-- #endif -->
e`;

describe('keepVariantLines', () => {
  it('keeps the blocks whose condition holds and drops every marker line', () => {
    expect(keepVariantLines(TEMPLATE, sqliteConsole, 't.ts')).toBe('a\nb\nd\ne');
    expect(keepVariantLines(TEMPLATE, memoryAlone, 't.ts')).toBe('a\nc\ne');
  });

  it('refuses a nested, unclosed or stray marker and an unknown condition, naming the line', () => {
    expect(() => keepVariantLines('// #if console\n// #if sqlite\n// #endif', memoryAlone, 'x.ts')).toThrow(
      'x.ts:2: #if inside the #if of line 1.',
    );
    expect(() => keepVariantLines('a\n// #if console\nb', memoryAlone, 'x.ts')).toThrow(
      'x.ts:2: #if without #endif.',
    );
    expect(() => keepVariantLines('// #endif', memoryAlone, 'x.ts')).toThrow('x.ts:1: #endif without #if.');
    expect(() => keepVariantLines('// #if mongo\n// #endif', memoryAlone, 'x.ts')).toThrow(
      'x.ts:1: unknown #if condition "mongo".',
    );
  });
});

describe('pointAtStore', () => {
  it('points imports of the memory database module at the chosen store', () => {
    const source =
      "import { a } from './db/memory.js';\nimport { b } from '../src/db/memory.js';\nimport { c } from \"../db/memory.js\";";
    expect(pointAtStore(source, 'postgres')).toBe(
      "import { a } from './db/postgres.js';\nimport { b } from '../src/db/postgres.js';\nimport { c } from \"../db/postgres.js\";",
    );
  });

  it('leaves other text alone', () => {
    const source = "const note = 'db/memory.js is the default';\nimport { x } from './memory.js';";
    expect(pointAtStore(source, 'sqlite')).toBe(source);
  });
});

describe('renderTemplate', () => {
  it('puts in the project name and rewrites imports only in TypeScript', () => {
    const text = "# {{name}}\nimport './db/memory.js';";
    expect(renderTemplate(text, sqliteConsole, 'README.md')).toBe("# desk\nimport './db/memory.js';");
    expect(renderTemplate(text, sqliteConsole, 'src/a.ts')).toBe("# desk\nimport './db/sqlite.js';");
  });

  it('leaves one blank line where a dropped block of markdown stood', () => {
    const text = 'Table.\n\n<!-- #if console -->\nConsole.\n\n<!-- #endif -->\nNext.';
    expect(renderTemplate(text, memoryAlone, 'README.md')).toBe('Table.\n\nNext.');
    expect(renderTemplate(text, sqliteConsole, 'README.md')).toBe('Table.\n\nConsole.\n\nNext.');
  });
});
