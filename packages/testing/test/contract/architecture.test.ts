import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  expandSources,
  expectToolArchitecture,
  forbidCode,
  globToRegExp,
  PERSISTENCE_RULES,
  scanSource,
  scanToolSources,
} from '../../src/index.js';

const root = fileURLToPath(new URL('./fixtures/tools/', import.meta.url));
const hostRoot = fileURLToPath(new URL('./host/', import.meta.url));

describe('scanToolSources', () => {
  it('reports persistence in tool code with file and line (I1)', async () => {
    const findings = await scanToolSources({ files: ['sqlTool.ts'], root });
    expect(findings.map((f) => `${f.file}:${f.line} ${f.invariant} ${f.rule}`)).toEqual([
      'sqlTool.ts:2 I1 imports better-sqlite3',
      'sqlTool.ts:7 I1 prepares SQL (db.prepare)',
      'sqlTool.ts:7 I1 uses a database handle (db., database., knex(), prisma.)',
      "sqlTool.ts:11 I1 calls the product's own HTTP API (fetch, axios)",
    ]);
  });

  it('reports an ambient user and policy helpers in tool code (I2)', async () => {
    const findings = await scanToolSources({ files: ['ambientTool.ts'], root });
    expect(findings.map((f) => [f.line, f.invariant, f.rule])).toEqual([
      [2, 'I2', 'reads a current user (currentUser)'],
      [3, 'I2', 'checks policy (can(), cannot(), authorize(), ability.)'],
      [6, 'I2', 'reads a current user (currentUser)'],
      [7, 'I2', 'checks policy (can(), cannot(), authorize(), ability.)'],
    ]);
  });

  it('ignores comments and strings and honours a gatehouse-allow comment', async () => {
    expect(await scanToolSources({ files: ['cleanTool.ts'], root })).toEqual([]);
  });

  it('passes the minimal host’s tool modules', async () => {
    await expect(
      expectToolArchitecture({ files: ['tools.ts', 'outward.ts'], root: hostRoot }),
    ).resolves.toBeUndefined();
  });

  it('throws with every place to fix, and refuses an empty file list', async () => {
    await expect(expectToolArchitecture({ files: ['*.ts'], root })).rejects.toThrow(
      /sqlTool\.ts:7:5 I1 prepares SQL/,
    );
    await expect(scanToolSources({ files: ['*.nothing'], root })).rejects.toThrow(/no source files/);
  });

  it('takes configured rules instead of the defaults', async () => {
    const findings = await scanToolSources({
      files: ['cleanTool.ts'],
      root,
      persistence: [forbidCode('I1', 'calls the bookings service', /services\.bookings\./)],
      ambient: [],
    });
    expect(findings.map((f) => f.line)).toEqual([10]);
  });
});

describe('scanSource', () => {
  it('matches imports, requires and dynamic imports of forbidden modules and their subpaths', () => {
    const text =
      "import { eq } from 'drizzle-orm/sql';\nconst pg = require('pg');\nawait import('knex');\nimport x from 'pgx';";
    expect(scanSource('t.ts', text, PERSISTENCE_RULES).map((f) => [f.line, f.rule])).toEqual([
      [1, 'imports drizzle-orm'],
      [2, 'imports pg'],
      [3, 'imports knex'],
    ]);
  });
});

describe('globToRegExp', () => {
  it('matches ** at any depth, * within a segment, and alternatives', () => {
    const glob = globToRegExp('src/**/tools/*.{ts,js}');
    expect(['src/tools/a.ts', 'src/mcp/x/tools/b.js'].every((p) => glob.test(p))).toBe(true);
    expect(['src/tools/a/b.ts', 'src/tools/a.md'].some((p) => glob.test(p))).toBe(false);
  });

  it('expands globs and directories to sorted source files', async () => {
    const files = await expandSources(['*Tool.ts', '.'], root);
    expect(files.map((f) => f.slice(root.length))).toEqual(['ambientTool.ts', 'cleanTool.ts', 'sqlTool.ts']);
  });
});
