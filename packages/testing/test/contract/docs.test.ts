import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fuzzContract } from '../../src/fuzz.js';
import { CONTRACT_CHECKS, expectToolArchitecture, runContractCheck } from '../../src/index.js';
import { notesFixture } from './host/fixture.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const docs = (name: string) => read(`../../../../docs/${name}`);
const SOURCES = [
  'host/fixture.ts',
  'host/notesHost.ts',
  'contract.test.ts',
  'docs.test.ts',
  'v1Host/fixture.ts',
  'v1Host/suite.ts',
  'inProcess.test.ts',
];

/** The ```ts blocks of a Markdown page. */
const codeBlocks = (markdown: string) =>
  [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => (m[1] ?? '').trim());

const dedent = (text: string) => {
  const lines = text.split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent)).join('\n');
};

describe('contract docs', () => {
  it('quotes every TypeScript snippet of contract-suite.md from compiled test code', () => {
    const sources = SOURCES.map((path) => dedent(read(path)));
    const sourceLines = SOURCES.flatMap((path) =>
      read(path)
        .split('\n')
        .map((l) => l.trim()),
    );
    for (const block of codeBlocks(docs('contract-suite.md'))) {
      const quoted =
        sources.some((source) => source.includes(block)) ||
        block.split('\n').every((l) => !l.trim() || sourceLines.includes(l.trim()));
      expect(quoted, block.slice(0, 80)).toBe(true);
    }
  });

  it('documents every contract check in contract-checks.md', () => {
    const page = docs('contract-checks.md');
    for (const check of CONTRACT_CHECKS) expect(page, check.id).toContain(`\`${check.id}\``);
  });

  it('runs the programmatic example of the guide', async () => {
    // #region programmatic
    const outcomes = await runContractCheck(notesFixture({ noTenantScoping: true }), 'I3.foreign-ids');
    expect(outcomes.filter((o) => o.status === 'failed').map((o) => o.tool)).toContain('get_note');
    // #endregion programmatic
  });

  it('runs the fuzz example of the guide', async () => {
    // #region fuzz
    const reports = await fuzzContract(notesFixture(), { tools: ['create_note'], numRuns: 50, seed: 42 });
    expect(reports.flatMap((r) => r.findings)).toEqual([]);
    // #endregion fuzz
  });

  // #region architecture
  it('keeps tool code on the service layer (I1, I2)', async () => {
    await expectToolArchitecture({ files: ['host/tools.ts', 'host/outward.ts'], root: here });
  });
  // #endregion architecture
});
