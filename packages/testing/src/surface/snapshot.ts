import { digest, EFFECT_TRAITS, EFFECTS, type Effect } from '@gatehousejs/core';
import { effectFromAnnotations } from '../contract/plan.js';
import { isPlainObject } from '../internal/jsonRpc.js';

/**
 * One tool as a client is shown it, reduced to what review must approve:
 * the effect class, the annotations verbatim, the title, and SHA-256 hashes
 * of the canonical JSON (RFC 8785) of the description and both schemas.
 */
export interface SurfaceTool {
  /**
   * The declared class when known (`effects`), else every class whose
   * annotations match (`read`, `notify|wake`, `alert|delete`), else `unknown`.
   */
  readonly effect: string;
  /** The advertised annotations, every key kept (`{}` when none). */
  readonly annotations: Readonly<Record<string, unknown>>;
  /** The advertised title, or null. */
  readonly title: string | null;
  /** `sha256:` and the hex digest of the canonical JSON of the description string. */
  readonly description: string;
  readonly inputSchema: string;
  /** The digest of the output schema, or null when the tool advertises none. */
  readonly outputSchema: string | null;
}

/** The tools of one listing, keyed by name. */
export type SurfaceToolset = Readonly<Record<string, SurfaceTool>>;

/** Every toolset a team locks (e.g. `full`, `compact`), keyed by the name the team gives it. */
export interface ToolSurface {
  readonly toolsets: Readonly<Record<string, SurfaceToolset>>;
}

/** Options of every surface taker. */
export interface SurfaceOptions {
  /**
   * Declared effect classes by tool name. Annotations cannot tell `notify`
   * from `wake` nor `alert` from `delete`; without an entry the class is
   * derived from them as the contract kit does (`effectFromAnnotations`).
   */
  readonly effects?: Readonly<Record<string, Effect>>;
}

const hashOf = (value: unknown): string => `sha256:${digest(value)}`;

/**
 * The classes the annotations allow, joined by `|`: the kit's
 * `effectFromAnnotations` for each class, since hints cannot tell `notify`
 * from `wake` nor `alert` from `delete`.
 */
function derivedEffect(annotations: Record<string, unknown>): string {
  const first = effectFromAnnotations(annotations);
  if (first === undefined) return 'unknown';
  const hints = digest(EFFECT_TRAITS[first].annotations);
  return EFFECTS.filter((effect) => digest(EFFECT_TRAITS[effect].annotations) === hints).join('|');
}

/** The advertised title: `title`, else `annotations.title`, else null. */
function titleOf(raw: Record<string, unknown>, annotations: Record<string, unknown>): string | null {
  if (typeof raw.title === 'string') return raw.title;
  return typeof annotations.title === 'string' ? annotations.title : null;
}

/** One listed tool (from `tools/list` or `GatehouseServer.listTools`) as a {@link SurfaceTool}. */
export function surfaceToolOf(raw: unknown, options: SurfaceOptions = {}): [string, SurfaceTool] {
  if (!isPlainObject(raw) || typeof raw.name !== 'string') {
    throw new TypeError('surface: a listed tool has no name; is this a tools/list result?');
  }
  const annotations = isPlainObject(raw.annotations) ? raw.annotations : {};
  const effect = options.effects?.[raw.name] ?? derivedEffect(annotations);
  return [
    raw.name,
    {
      effect,
      annotations,
      title: titleOf(raw, annotations),
      description: hashOf(typeof raw.description === 'string' ? raw.description : ''),
      inputSchema: hashOf(raw.inputSchema ?? null),
      outputSchema: raw.outputSchema === undefined ? null : hashOf(raw.outputSchema),
    },
  ];
}

/**
 * The surface of listings already fetched, one per toolset. Throws for a
 * listing that is not an array of named tools, and for a name listed twice
 * in one toolset (a client would see two tools under one name).
 */
export function surfaceOf(
  listings: Readonly<Record<string, readonly unknown[]>>,
  options: SurfaceOptions = {},
): ToolSurface {
  const toolsets: Record<string, SurfaceToolset> = {};
  for (const [toolset, listing] of Object.entries(listings)) {
    if (!Array.isArray(listing)) throw new TypeError(`surface: toolset "${toolset}" is not a tool list.`);
    const tools: Record<string, SurfaceTool> = {};
    for (const raw of listing) {
      const [name, tool] = surfaceToolOf(raw, options);
      if (Object.hasOwn(tools, name))
        throw new TypeError(`surface: toolset "${toolset}" lists ${name} twice.`);
      tools[name] = tool;
    }
    toolsets[toolset] = tools;
  }
  return { toolsets };
}
