import { readFile, rename, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareSurfaces, formatSurfaceFindings, type SurfaceFinding } from './diff.js';
import { parseSurfaceLock, renderSurfaceLock } from './lockfile.js';
import type { ToolSurface } from './snapshot.js';

/** The environment variable that asks for the lockfile to be written (outside CI). */
export const SURFACE_UPDATE_VARIABLE = 'GATEHOUSE_SURFACE_UPDATE';

/** Where the lockfile lives and whether this run may write it. */
export interface SurfaceLockOptions {
  /** The committed lockfile: a file URL, e.g. `new URL('./mcp-surface.lock.json', import.meta.url)`, or a path (relative to the working directory). */
  readonly lockfile: string | URL;
  /** Write the lockfile when it is missing or differs; default: `GATEHOUSE_SURFACE_UPDATE` is `1` or `true`. */
  readonly update?: boolean;
  /** Never write, whatever `update` says; default: `CI` is set (and not `0` or `false`). */
  readonly ci?: boolean;
  /** Where the defaults are read; `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The outcome of one lockfile check: `match` and `written` pass; `missing`,
 * `mismatch` and `unreadable` fail. `findings` lists every difference (for
 * `written`: what the new lockfile changed); `message` is the readable diff.
 */
export interface SurfaceLockReport {
  readonly ok: boolean;
  readonly status: 'match' | 'written' | 'missing' | 'mismatch' | 'unreadable';
  readonly findings: readonly SurfaceFinding[];
  readonly message: string;
  /** The lockfile's path. */
  readonly lockfile: string;
}

const BRAND = Symbol.for('gatehousejs.testing.SurfaceLockError');

/** Thrown by {@link assertSurfaceLock} when the served surface is not the locked one. */
export class SurfaceLockError extends Error {
  readonly [BRAND] = true;
  override readonly name = 'SurfaceLockError';
  readonly report: SurfaceLockReport;
  constructor(report: SurfaceLockReport) {
    super(report.message);
    this.report = report;
  }
  /** True for a SurfaceLockError from any copy of this package. */
  static is(error: unknown): error is SurfaceLockError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
  }
}

const truthy = (value: string | undefined) =>
  value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';

function policyOf(options: SurfaceLockOptions) {
  const env = options.env ?? process.env;
  const ci = options.ci ?? truthy(env.CI);
  const requested = options.update ?? truthy(env[SURFACE_UPDATE_VARIABLE]);
  return { ci, requested, write: requested && !ci };
}

const pathOf = (lockfile: string | URL) => (lockfile instanceof URL ? fileURLToPath(lockfile) : lockfile);

function shownPath(path: string): string {
  const near = relative(process.cwd(), path);
  return near.startsWith('..') || near === '' ? path : near;
}

async function readLock(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes through a sibling file and a rename, so a reader never sees half a lockfile. */
async function writeLock(path: string, surface: ToolSurface): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, renderSurfaceLock(surface), 'utf8');
  await rename(temporary, path);
}

const HOW_TO_UPDATE = `review the changes, then write the lockfile with ${SURFACE_UPDATE_VARIABLE}=1 (outside CI) and commit it`;

/** The last line of a failure: what to do, and that CI never writes. */
function howToFix(ci: boolean, requested: boolean): string {
  return ci
    ? `CI never writes the lockfile${requested ? ` (${SURFACE_UPDATE_VARIABLE} is ignored)` : ''}: ${HOW_TO_UPDATE}.`
    : `If the changes are intended, ${HOW_TO_UPDATE}.`;
}

/** The committed lockfile: absent, read, or text that is not a lockfile (with why). */
type Locked =
  | { readonly kind: 'missing' }
  | { readonly kind: 'read'; readonly surface: ToolSurface }
  | { readonly kind: 'unreadable'; readonly why: string };

async function lockedAt(path: string): Promise<Locked> {
  const text = await readLock(path);
  if (text === undefined) return { kind: 'missing' };
  try {
    return { kind: 'read', surface: parseSurfaceLock(text) };
  } catch (error) {
    return { kind: 'unreadable', why: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Compares `surface` with the committed lockfile. Writes the lockfile only
 * when an update is requested and the run is not CI; in CI a missing or
 * different lockfile fails and is never written. Outside CI a mismatch
 * fails too, and the message says how to update. Never throws for a
 * difference: read `report.ok` (or use {@link assertSurfaceLock}).
 */
export async function checkSurfaceLock(
  surface: ToolSurface,
  options: SurfaceLockOptions,
): Promise<SurfaceLockReport> {
  const lockfile = pathOf(options.lockfile);
  const shown = shownPath(lockfile);
  const { ci, requested, write } = policyOf(options);
  const locked = await lockedAt(lockfile);
  if (locked.kind === 'unreadable' && !write) {
    const message = `${shown} is not a readable surface lockfile (${locked.why}).\n${howToFix(ci, requested)}`;
    return { ok: false, status: 'unreadable', findings: [], message, lockfile };
  }
  const findings = compareSurfaces(locked.kind === 'read' ? locked.surface : { toolsets: {} }, surface);
  const diff = formatSurfaceFindings(findings);
  if (locked.kind === 'read' && findings.length === 0) {
    return { ok: true, status: 'match', findings, message: `${shown} matches.`, lockfile };
  }
  if (write) {
    await writeLock(lockfile, surface);
    return { ok: true, status: 'written', findings, message: `Wrote ${shown}:\n${diff}`, lockfile };
  }
  const status = locked.kind === 'missing' ? 'missing' : 'mismatch';
  const head =
    status === 'missing'
      ? `No tool surface lockfile at ${shown}; the surface:`
      : `The tool surface differs from ${shown}:`;
  return { ok: false, status, findings, message: `${head}\n${diff}\n${howToFix(ci, requested)}`, lockfile };
}

/**
 * {@link checkSurfaceLock}, throwing a {@link SurfaceLockError} whose
 * message is the diff when the check fails. Returns the passing report.
 *
 * @example
 * await assertSurfaceLock(await servedSurface({ endpoint, tokens: { full, compact } }), {
 *   lockfile: new URL('./mcp-surface.lock.json', import.meta.url),
 * });
 */
export async function assertSurfaceLock(
  surface: ToolSurface,
  options: SurfaceLockOptions,
): Promise<SurfaceLockReport> {
  const report = await checkSurfaceLock(surface, options);
  if (!report.ok) throw new SurfaceLockError(report);
  return report;
}
