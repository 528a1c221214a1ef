import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import * as stores from '../src/index.js';

const read = (path: string): string => readFileSync(new URL(path, import.meta.url), 'utf8');
const doc = read('../../../docs/stores.md');

/** The fenced blocks of one language in a page (default docs/stores.md). */
const blocks = (lang: string, page = doc): string[] =>
  [...page.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '');

/** Lines without their indentation or region markers, so an indented excerpt (or one around a nested quoted region) matches its source. */
const unindent = (text: string): string =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => !/^\/\/ #(end)?region [\w-]+$/.test(line))
    .join('\n')
    .trim();

const sources = [
  './examples/setup.ts',
  './examples/crashSafeWrite.ts',
  './examples/mcpServer.ts',
  './fixtures/tempDatabase.ts',
  './contract.test.ts',
  './postgresExample.ts',
].map((path) => unindent(read(path)));

/** Every snippet is copied from one of the compiled, tested sources. */
function expectQuoted(snippets: readonly string[]): void {
  for (const snippet of snippets) {
    expect(
      sources.some((source) => source.includes(unindent(snippet))),
      snippet,
    ).toBe(true);
  }
}

describe('docs/stores.md', () => {
  it('shows only TypeScript that is copied from compiled, tested files', () => {
    const snippets = blocks('ts');
    expect(snippets.length).toBeGreaterThanOrEqual(4);
    expectQuoted(snippets);
  });

  it('shows the schema exactly as the migrations create it', () => {
    const db = new Database(':memory:');
    stores.migrateGatehouseSchema(db);
    const actual = db
      .prepare<[], { sql: string }>('SELECT sql FROM sqlite_master WHERE sql IS NOT NULL')
      .all()
      .map((r) => r.sql.trim());
    db.close();
    const documented = blocks('sql')
      .join('\n')
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean);
    expect(documented.sort()).toEqual(actual.sort());
  });

  it('names every export of the package', () => {
    for (const name of Object.keys(stores)) expect(doc, name).toContain(`\`${name}`);
  });

  it('names no option or guard the guard contract removed, here, on the replicas and storage pages or in the package README', () => {
    const pages = ['../README.md', '../../../docs/replicas.md', '../../../docs/storage.md'].map(read);
    for (const text of [doc, ...pages]) {
      expect(text).not.toMatch(
        /transactionGuard|batchGuard|checkGate|switches\.guard|onInternalError|(replay|confirm): \{ store|rate: \{ store:|replay\.(leaseMs|store)|rate\.stores/,
      );
    }
  });

  it('shows the server with its guards built on the stores by standardGuards', () => {
    expect(blocks('ts').some((snippet) => snippet.includes('guards: standardGuards(stores, {'))).toBe(true);
  });
});

describe('docs/replicas.md', () => {
  it('shows only TypeScript that is copied from compiled, tested files', () => {
    const snippets = blocks('ts', read('../../../docs/replicas.md'));
    expect(snippets.length).toBeGreaterThanOrEqual(1);
    expectQuoted(snippets);
  });

  it('shows the server with its guards built on the shared stores by standardGuards', () => {
    const snippets = blocks('ts', read('../../../docs/replicas.md'));
    expect(snippets.some((snippet) => snippet.includes('guards: standardGuards(stores, {'))).toBe(true);
  });
});
