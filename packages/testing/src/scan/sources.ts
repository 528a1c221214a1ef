import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { displayPath, expandSources } from '../architecture/files.js';
import { isPlainObject } from '../internal/jsonRpc.js';
import type { SourceLocation } from './types.js';

/** True when `dir` holds a package that depends on `@gatehousejs/core`. */
export async function isGatehouseProject(dir: string): Promise<boolean> {
  try {
    const manifest: unknown = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    if (!isPlainObject(manifest)) return false;
    return ['dependencies', 'devDependencies', 'peerDependencies'].some((field) => {
      const deps = manifest[field];
      return isPlainObject(deps) && '@gatehousejs/core' in deps;
    });
  } catch {
    return false;
  }
}

const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where each tool is defined in the sources under `root` (node_modules and
 * dist skipped): the first line holding `name: '<tool>'` (or `"<tool>"`),
 * as `defineTool` declares it. Tools not found are left out.
 */
export async function findToolSources(
  root: string,
  tools: readonly string[],
): Promise<Record<string, SourceLocation>> {
  const files = await expandSources([root]);
  const found: Record<string, SourceLocation> = {};
  const patterns = tools.map(
    (tool) => [tool, new RegExp(`\\bname\\s*:\\s*(['"\`])${escaped(tool)}\\1`)] as const,
  );
  for (const file of files) {
    if (/\.(test|spec)\.[cm]?[jt]sx?$/.test(file)) continue;
    const lines = (await readFile(file, 'utf8')).split('\n');
    for (const [tool, pattern] of patterns) {
      if (found[tool]) continue;
      const index = lines.findIndex((line) => pattern.test(line));
      if (index >= 0) found[tool] = { file: displayPath(file, root), line: index + 1 };
    }
  }
  return found;
}
