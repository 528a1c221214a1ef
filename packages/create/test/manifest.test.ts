import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { THIRD_PARTY } from '../src/internal/manifest.js';

/** The version of a package installed in this repository: the one its tests ran with. */
const installed = (name: string): string =>
  JSON.parse(readFileSync(new URL(`../../../node_modules/${name}/package.json`, import.meta.url), 'utf8'))
    .version;

const parts = (version: string) => version.split('-')[0]?.split('.').map(Number) ?? [];

/** Whether `version` satisfies a caret or tilde range (the only kinds the generator writes). */
function satisfies(version: string, range: string): boolean {
  const [operator, base] = [range[0], range.slice(1)];
  const [major = 0, minor = 0, patch = 0] = parts(version);
  const [bMajor = 0, bMinor = 0, bPatch = 0] = parts(base);
  const atLeast =
    major > bMajor || (major === bMajor && (minor > bMinor || (minor === bMinor && patch >= bPatch)));
  if (operator === '~') return atLeast && major === bMajor && minor === bMinor;
  if (operator === '^') return atLeast && (bMajor > 0 ? major === bMajor : minor === bMinor);
  throw new Error(`not a caret or tilde range: ${range}`);
}

describe('THIRD_PARTY', () => {
  const ranges = Object.values(THIRD_PARTY).flatMap((group) => Object.entries(group));

  it('names ranges that the versions this repository tests with satisfy', () => {
    for (const [name, range] of ranges)
      expect(satisfies(installed(name), range), `${name} ${installed(name)} ${range}`).toBe(true);
  });

  it('keeps to the lines that run on Node 20: vitest 4, better-sqlite3 12, TypeScript 5.9', () => {
    expect(THIRD_PARTY.devDependencies.vitest).toMatch(/^\^4\./);
    expect(THIRD_PARTY.sqlite['better-sqlite3']).toMatch(/^\^12\./);
    expect(THIRD_PARTY.devDependencies.typescript).toMatch(/^~5\.9\./);
  });

  it('asks for the peers Gatehouse packages declare, in their ranges', () => {
    const peers = (pkg: string) =>
      JSON.parse(readFileSync(new URL(`../../${pkg}/package.json`, import.meta.url), 'utf8'))
        .peerDependencies;
    expect(THIRD_PARTY.dependencies.zod).toBe(peers('presenters').zod);
    expect(THIRD_PARTY.dependencies['@modelcontextprotocol/server']).toBe(
      peers('core')['@modelcontextprotocol/server'],
    );
    expect(THIRD_PARTY.sqlite['better-sqlite3']).toBe(peers('stores')['better-sqlite3']);
    expect(THIRD_PARTY.postgres.pg).toBe(peers('stores').pg);
  });
});
