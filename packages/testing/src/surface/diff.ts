import { canonicalJson } from '@gatehousejs/core';
import type { SurfaceTool, SurfaceToolset, ToolSurface } from './snapshot.js';

/** The fields of a locked tool that review approves. */
export type SurfaceField =
  | 'effect'
  | 'annotations'
  | 'title'
  | 'description'
  | 'inputSchema'
  | 'outputSchema';

const FIELDS: readonly SurfaceField[] = [
  'effect',
  'annotations',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
];

/** One difference between the locked surface and the current one. */
export type SurfaceFinding =
  | {
      readonly kind: 'toolset-added' | 'toolset-removed';
      readonly toolset: string;
      readonly tools: readonly string[];
    }
  | { readonly kind: 'tool-added' | 'tool-removed'; readonly toolset: string; readonly tool: string }
  | {
      readonly kind: 'changed';
      readonly toolset: string;
      readonly tool: string;
      readonly field: SurfaceField;
      /** What the change reads as: `hash 1a2b…→3c4d…`, `write→delete`, `destructiveHint false→true`. */
      readonly detail: string;
    };

const sorted = (keys: Iterable<string>) => [...keys].sort();
const shortHash = (hash: string | null) =>
  hash === null ? 'none' : hash.replace(/^sha256:/, '').slice(0, 12);
const shown = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value));
const canonicalOrAbsent = (value: unknown) => (value === undefined ? 'absent' : canonicalJson(value));

/** The annotation keys whose values differ, as `key before→after`. */
function annotationDetail(before: SurfaceTool['annotations'], after: SurfaceTool['annotations']): string {
  const keys = sorted(new Set([...Object.keys(before), ...Object.keys(after)]));
  return keys
    .filter((key) => canonicalOrAbsent(before[key]) !== canonicalOrAbsent(after[key]))
    .map((key) => `${key} ${shown(before[key])}→${shown(after[key])}`)
    .join(', ');
}

function fieldDetail(field: SurfaceField, before: SurfaceTool, after: SurfaceTool): string | undefined {
  if (canonicalJson(before[field]) === canonicalJson(after[field])) return undefined;
  if (field === 'annotations') return annotationDetail(before.annotations, after.annotations);
  if (field === 'effect') return `${before.effect}→${after.effect}`;
  if (field === 'title') return `${shown(before.title)}→${shown(after.title)}`;
  return `hash ${shortHash(before[field])}→${shortHash(after[field])}`;
}

function toolsetFindings(toolset: string, locked: SurfaceToolset, current: SurfaceToolset): SurfaceFinding[] {
  const findings: SurfaceFinding[] = [];
  for (const tool of sorted(new Set([...Object.keys(locked), ...Object.keys(current)]))) {
    const before = Object.hasOwn(locked, tool) ? locked[tool] : undefined;
    const after = Object.hasOwn(current, tool) ? current[tool] : undefined;
    if (!before) findings.push({ kind: 'tool-added', toolset, tool });
    else if (!after) findings.push({ kind: 'tool-removed', toolset, tool });
    else {
      for (const field of FIELDS) {
        const detail = fieldDetail(field, before, after);
        if (detail !== undefined) findings.push({ kind: 'changed', toolset, tool, field, detail });
      }
    }
  }
  return findings;
}

/**
 * Every difference between `locked` and `current`, by toolset then tool
 * name: toolsets and tools added or removed, and each changed field of a
 * tool present in both. Empty when the surfaces are equal.
 */
export function compareSurfaces(locked: ToolSurface, current: ToolSurface): SurfaceFinding[] {
  const findings: SurfaceFinding[] = [];
  const names = sorted(new Set([...Object.keys(locked.toolsets), ...Object.keys(current.toolsets)]));
  for (const toolset of names) {
    const before = Object.hasOwn(locked.toolsets, toolset) ? locked.toolsets[toolset] : undefined;
    const after = Object.hasOwn(current.toolsets, toolset) ? current.toolsets[toolset] : undefined;
    if (!before) findings.push({ kind: 'toolset-added', toolset, tools: sorted(Object.keys(after ?? {})) });
    else if (!after) findings.push({ kind: 'toolset-removed', toolset, tools: sorted(Object.keys(before)) });
    else findings.push(...toolsetFindings(toolset, before, after));
  }
  return findings;
}

/** One finding as a diff line, e.g. `create_booking: description changed (hash 1a2b…→3c4d…)`. */
export function formatSurfaceFinding(finding: SurfaceFinding): string {
  switch (finding.kind) {
    case 'toolset-added':
      return `toolset "${finding.toolset}" added (${finding.tools.join(', ') || 'no tools'})`;
    case 'toolset-removed':
      return `toolset "${finding.toolset}" removed (it listed ${finding.tools.join(', ') || 'no tools'})`;
    case 'tool-added':
      return `+ ${finding.tool}: added`;
    case 'tool-removed':
      return `- ${finding.tool}: removed`;
    case 'changed':
      return `${finding.tool}: ${finding.field} changed (${finding.detail})`;
  }
}

/** The findings as a readable diff, grouped under a `toolset "<name>":` heading each. */
export function formatSurfaceFindings(findings: readonly SurfaceFinding[]): string {
  const lines: string[] = [];
  let heading: string | undefined;
  for (const finding of findings) {
    if (finding.kind === 'toolset-added' || finding.kind === 'toolset-removed') {
      lines.push(formatSurfaceFinding(finding));
      heading = undefined;
      continue;
    }
    if (heading !== finding.toolset) lines.push(`toolset "${finding.toolset}":`);
    heading = finding.toolset;
    lines.push(`  ${formatSurfaceFinding(finding)}`);
  }
  return lines.join('\n');
}
