import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCAN_CHECKS, SCAN_USAGE } from '../../src/index.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const page = () => read('../../../../docs/scan.md');

describe('docs/scan.md', () => {
  it('documents every scan check', () => {
    for (const check of SCAN_CHECKS) expect(page(), check.id).toContain(`| \`${check.id}\``);
  });

  it('names only options the command takes', () => {
    const options = new Set([...SCAN_USAGE.matchAll(/--[a-z-]+/g)].map((m) => m[0]));
    for (const [option] of page().matchAll(/--[a-z][a-z-]+/g)) expect(options, option).toContain(option);
  });
});
