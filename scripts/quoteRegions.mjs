#!/usr/bin/env node
// Refreshes the TypeScript blocks of markdown pages from the compiled, tested
// files they quote. A block preceded by `<!-- quote path#region -->` (path
// relative to the page) is replaced by that region of the file, unindented.
// `node scripts/quoteRegions.mjs docs/guards.md …`; `--check` fails instead of writing.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The marker a quoted block follows: `<!-- quote path#region -->`. */
export const QUOTE_MARKER = /^<!-- quote ([^#\s]+)#([\w-]+) -->$/;

/** The text between `// #region name` and `// #endregion name` of a file, unindented, without nested markers. */
export function region(file, name) {
  const text = readFileSync(file, 'utf8');
  const body = text.split(`// #region ${name}\n`)[1]?.split(`// #endregion ${name}`)[0];
  if (body === undefined) throw new Error(`${file}: no region ${name}`);
  // a region nested inside is quoted elsewhere: its marker lines are not part of this one
  const lines = body
    .replace(/\n\s*$/, '')
    .split('\n')
    .filter((l) => !/^\s*\/\/ #(end)?region [\w-]+\s*$/.test(l));
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^ */)[0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

function main() {
  const check = process.argv.includes('--check');
  const pages = process.argv.slice(2).filter((a) => a !== '--check');
  let stale = 0;
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    const next = text.replace(
      /<!-- quote ([^#\s]+)#([\w-]+) -->\n```ts\n(?:[\s\S]*?\n)?```/g,
      (_all, path, name) =>
        `<!-- quote ${path}#${name} -->\n\`\`\`ts\n${region(resolve(dirname(page), path), name)}\n\`\`\``,
    );
    if (next !== text) {
      stale++;
      if (!check) writeFileSync(page, next);
      console.log(`${check ? 'stale' : 'refreshed'}: ${page}`);
    }
  }
  if (check && stale > 0) process.exit(1);
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) main();
