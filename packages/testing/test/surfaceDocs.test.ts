import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The text between `// #region <name>` and `// #endregion <name>`, dedented. */
function region(source: string, name: string): string {
  const inner = source.split(`// #region ${name}\n`)[1]?.split(`// #endregion ${name}`)[0] ?? '';
  const lines = inner.split('\n').filter((line, i, all) => i < all.length - 1 || line.trim());
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return lines
    .map((l) => l.slice(indent))
    .join('\n')
    .trim();
}

describe('docs/surface-lock.md', () => {
  it('quotes each TypeScript snippet verbatim from a test that runs it', () => {
    const page = read('../../../docs/surface-lock.md');
    const blocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => (m[1] ?? '').trim());
    const quoted = [
      region(read('../../../examples/booking/test/surface.test.ts'), 'surface-lock'),
      region(read('./surfaceDescribe.test.ts'), 'framework-free'),
    ];
    expect(quoted.every((snippet) => snippet.length > 0)).toBe(true);
    expect(blocks).toEqual(quoted);
  });

  it('is linked from the docs index and the testing page', () => {
    expect(read('../../../docs/README.md')).toContain('](surface-lock.md)');
    expect(read('../../../docs/testing.md')).toContain('](surface-lock.md)');
  });
});
