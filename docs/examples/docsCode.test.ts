import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { blocksOf, checkPages } from '../../scripts/checkDocsCode.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(repo, 'node_modules', '.cache'), { recursive: true });
// inside the repository, as the checker's own scratch folder, so modules resolve alike
const fixtures = mkdtempSync(join(repo, 'node_modules', '.cache', 'docs-code-test-'));
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  const path = join(fixtures, name);
  writeFileSync(path, text);
  return path;
};
const fence = '```';

describe('checkDocsCode', () => {
  it('compiles each block with its context and names the page line of a type error', () => {
    write('context.mts', 'export const answer = 42;\nexport interface Shape { readonly side: number }\n');
    const page = write(
      'compiled.md',
      [
        '# A page',
        '',
        '<!-- context ./context.mts -->',
        `${fence}ts`,
        'const square: Shape = { side: answer };',
        fence,
        '',
        `${fence}ts`,
        "const side: number = 'one';",
        fence,
        '',
      ].join('\n'),
    );
    const { failures, counts } = checkPages([page]);
    expect(counts).toEqual({ quoted: 0, compiled: 2, fragment: 0 });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/compiled\.md:9: Type 'string' is not assignable to type 'number'/);
  });

  it('refuses a quoted block that differs from its region, and one whose region is gone', () => {
    write(
      'source.ts',
      'export const f = () => {\n  // #region body\n  return 1;\n  // #endregion body\n};\n',
    );
    const page = write(
      'quoted.md',
      [
        '<!-- quote ./source.ts#body -->',
        `${fence}ts`,
        'return 1;',
        fence,
        '',
        '<!-- quote ./source.ts#body -->',
        `${fence}ts`,
        'return 2;',
        fence,
        '',
        '<!-- quote ./source.ts#gone -->',
        `${fence}ts`,
        'return 1;',
        fence,
      ].join('\n'),
    );
    const { failures, counts } = checkPages([page]);
    expect(counts.quoted).toBe(3);
    expect(failures).toEqual([
      expect.stringMatching(/quoted\.md:7: differs from .*source\.ts#body$/),
      expect.stringMatching(/quoted\.md:12: .*no region gone/),
    ]);
  });

  it('leaves a fragment uncompiled but counts it, and reads other languages as text', () => {
    const page = write(
      'fragment.md',
      [
        `${fence}ts fragment`,
        'this is not TypeScript',
        fence,
        `${fence}sh`,
        '<!-- quote ./nowhere.ts#none -->',
        fence,
      ].join('\n'),
    );
    const { failures, counts, fragments } = checkPages([page]);
    expect(failures).toEqual([]);
    expect(counts).toEqual({ quoted: 0, compiled: 0, fragment: 1 });
    expect(fragments).toEqual([expect.stringMatching(/fragment\.md:1$/)]);
  });

  it('finds every TypeScript block of the docs, and keeps fragments to a few', () => {
    const docs = join(repo, 'docs');
    const generated = /^(api|repo|\.vitepress|node_modules)\//;
    const pages = readdirSync(docs, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md') && !generated.test(name))
      .map((name) => join(docs, name));
    pages.push(join(repo, 'README.md'));
    const fences = pages.flatMap((page) => readFileSync(page, 'utf8').match(/^```(ts|typescript)\b/gm) ?? []);
    const blocks = pages.flatMap((page) => blocksOf(page));
    expect(blocks).toHaveLength(fences.length);
    expect(blocks.length).toBeGreaterThan(100);
    expect(blocks.filter((block) => block.kind === 'fragment').length).toBeLessThanOrEqual(3);
  });
});
