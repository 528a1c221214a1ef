import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's folder: this module sits one level below it, in `src` or in `dist`. */
const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** Where the project templates are. */
export const TEMPLATES = join(packageRoot, 'templates');

/** This package's version: the `@gatehousejs/*` packages a new project depends on are of the same release. */
export function ownVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
  const version = (manifest as { version?: unknown }).version;
  if (typeof version !== 'string') throw new Error('@gatehousejs/create: its package.json has no version.');
  return version;
}
