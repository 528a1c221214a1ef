import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { assertSurfaceLock, type SurfaceLockOptions } from './check.js';
import type { ToolSurface } from './snapshot.js';

/** Options of {@link describeSurfaceLock}. */
export interface DescribeSurfaceLockOptions extends SurfaceLockOptions {
  /** Takes the surface (start the server, mint a token per toolset, list); called once per run. */
  readonly surface: () => Promise<ToolSurface>;
  /** Named in the `describe` title; default: the lockfile's file name. */
  readonly name?: string;
  /** Timeout of the case in ms; default 60 000. */
  readonly timeoutMs?: number;
}

/**
 * Registers one vitest case that takes the tool surface and compares it
 * with the committed lockfile ({@link assertSurfaceLock}): it fails with the
 * diff (tool, field, toolset) when they differ or the lockfile is missing,
 * writes the lockfile only when `GATEHOUSE_SURFACE_UPDATE=1` outside CI, and
 * never writes under `CI=true`.
 *
 * @example
 * describeSurfaceLock({
 *   lockfile: new URL('./mcp-surface.lock.json', import.meta.url),
 *   surface: () => servedSurface({ endpoint: url, tokens: { full: token } }),
 * });
 */
export function describeSurfaceLock(options: DescribeSurfaceLockOptions): void {
  const { surface, name, timeoutMs, ...lock } = options;
  const file = basename(lock.lockfile instanceof URL ? fileURLToPath(lock.lockfile) : lock.lockfile);
  describe(`tool surface: ${name ?? file}`, () => {
    it(`serves exactly the tools, annotations, descriptions and schemas locked in ${file}`, {
      timeout: timeoutMs ?? 60_000,
    }, async () => {
      const report = await assertSurfaceLock(await surface(), lock);
      if (report.status === 'written') console.info(report.message);
    });
  });
}
