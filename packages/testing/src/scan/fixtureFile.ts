import { readFile } from 'node:fs/promises';
import { isPlainObject } from '../internal/jsonRpc.js';
import { ScanUsageError } from './cliArgs.js';
import type { ScanFixture, ScanFixtureTool } from './types.js';

/**
 * Checks a parsed fixture: `{ "tools": { "<name>": { "arguments": {…},
 * "writes"?: boolean } } }`. Throws {@link ScanUsageError} naming the first
 * problem; `where` names the file in it.
 */
export function parseScanFixture(value: unknown, where: string): ScanFixture {
  if (!isPlainObject(value) || !isPlainObject(value.tools)) {
    throw new ScanUsageError(`${where}: expected {"tools": {"<tool name>": {"arguments": {...}}}}`);
  }
  const tools: Record<string, ScanFixtureTool> = {};
  for (const [name, entry] of Object.entries(value.tools)) {
    if (!isPlainObject(entry) || !isPlainObject(entry.arguments)) {
      throw new ScanUsageError(`${where}: tools.${name} needs "arguments", an object`);
    }
    if (entry.writes !== undefined && typeof entry.writes !== 'boolean') {
      throw new ScanUsageError(`${where}: tools.${name}.writes must be true or false`);
    }
    const unknown = Object.keys(entry).filter((key) => key !== 'arguments' && key !== 'writes');
    if (unknown.length > 0)
      throw new ScanUsageError(
        `${where}: tools.${name} has unknown keys ${unknown.join(', ')} (allowed: arguments, writes)`,
      );
    tools[name] = {
      arguments: entry.arguments,
      ...(entry.writes === undefined ? {} : { writes: entry.writes }),
    };
  }
  return { tools };
}

/** Reads and checks the fixture file at `path`; a missing or malformed file is a {@link ScanUsageError}. */
export async function readScanFixture(path: string): Promise<ScanFixture> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScanUsageError(
      `--fixture: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ScanUsageError(`--fixture: ${path} is not JSON`);
  }
  return parseScanFixture(value, path);
}
