import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.git', 'coverage']);

/** A regular expression for a glob: `**` (any depth), `*`, `?`, `{a,b}`; `/` separates. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else if (char === '{') out += '(?:';
    else if (char === '}') out += ')';
    else if (char === ',') out += '|';
    else out += char.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

const isGlob = (pattern: string) => /[*?{]/.test(pattern);

async function walk(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) ? [] : walk(path);
      return entry.isFile() && SOURCE.test(entry.name) ? [path] : [];
    }),
  );
  return nested.flat();
}

/** The directory a glob cannot match outside of: its path before the first wildcard segment. */
function baseOf(pattern: string): string {
  const segments = pattern.split('/');
  const fixed: string[] = [];
  for (const segment of segments) {
    if (isGlob(segment)) break;
    fixed.push(segment);
  }
  return fixed.join('/') || '.';
}

/**
 * The source files that paths and globs name, sorted, without duplicates. A
 * path to a directory means every source file under it; `node_modules`,
 * `dist` and `coverage` are never entered. Relative patterns resolve from `root`.
 */
export async function expandSources(
  patterns: readonly string[],
  root: string = process.cwd(),
): Promise<string[]> {
  const found = new Set<string>();
  for (const raw of patterns) {
    const pattern = raw.split(sep).join('/');
    const absolute = isAbsolute(pattern) ? pattern : resolve(root, pattern);
    if (!isGlob(pattern)) {
      const info = await stat(absolute).catch(() => undefined);
      if (!info) throw new Error(`architecture scan: ${raw} does not exist`);
      for (const file of info.isDirectory() ? await walk(absolute) : [absolute]) found.add(file);
      continue;
    }
    const base = resolve(root, baseOf(pattern));
    const matcher = globToRegExp(absolute.split(sep).join('/'));
    const candidates = await walk(base).catch(() => []);
    for (const file of candidates) if (matcher.test(file.split(sep).join('/'))) found.add(file);
  }
  return [...found].sort();
}

/** `file` relative to `root`, with `/` separators, for findings. */
export function displayPath(file: string, root: string): string {
  return relative(root, file).split(sep).join('/');
}
