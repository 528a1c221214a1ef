import { isPlainObject } from '../internal/jsonRpc.js';
import type { SurfaceTool, SurfaceToolset, ToolSurface } from './snapshot.js';

/** The lockfile format this kit writes and reads. */
export const SURFACE_LOCK_VERSION = 1;

/** `value` with the keys of every object sorted, so the text never depends on listing order. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isPlainObject(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortedKeys(value[key]);
  return sorted;
}

/**
 * The lockfile text of `surface`: JSON with every key sorted, two-space
 * indents, one tool per entry and a final newline, so a review diff shows
 * exactly the tools and fields that changed.
 */
export function renderSurfaceLock(surface: ToolSurface): string {
  const document = { lockfileVersion: SURFACE_LOCK_VERSION, toolsets: surface.toolsets };
  return `${JSON.stringify(sortedKeys(document), null, 2)}\n`;
}

const isHash = (value: unknown): value is string => typeof value === 'string' && value.startsWith('sha256:');

function toolOf(where: string, raw: unknown): SurfaceTool {
  const fail = (field: string): never => {
    throw new TypeError(`${where}: "${field}" is missing or malformed.`);
  };
  if (!isPlainObject(raw)) return fail('(entry)');
  if (typeof raw.effect !== 'string') fail('effect');
  if (!isPlainObject(raw.annotations)) fail('annotations');
  if (raw.title !== null && typeof raw.title !== 'string') fail('title');
  if (!isHash(raw.description)) fail('description');
  if (!isHash(raw.inputSchema)) fail('inputSchema');
  if (raw.outputSchema !== null && !isHash(raw.outputSchema)) fail('outputSchema');
  return raw as unknown as SurfaceTool;
}

/**
 * Reads lockfile text back into a surface. Throws a TypeError naming the
 * toolset, tool and field when the text is not a lockfile of this version.
 */
export function parseSurfaceLock(text: string): ToolSurface {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isPlainObject(document) || document.lockfileVersion !== SURFACE_LOCK_VERSION) {
    throw new TypeError(`not a version ${SURFACE_LOCK_VERSION} surface lockfile`);
  }
  if (!isPlainObject(document.toolsets)) throw new TypeError('"toolsets" is missing');
  const toolsets: Record<string, SurfaceToolset> = {};
  for (const [toolset, tools] of Object.entries(document.toolsets)) {
    if (!isPlainObject(tools)) throw new TypeError(`toolset "${toolset}" is not an object`);
    const entries: Record<string, SurfaceTool> = {};
    for (const [name, raw] of Object.entries(tools)) entries[name] = toolOf(`${toolset}/${name}`, raw);
    toolsets[toolset] = entries;
  }
  return { toolsets };
}
