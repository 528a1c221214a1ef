import type { McpEra } from '../types.js';
import { SCAN_CHECKS } from './catalog.js';
import type { ScanCheck } from './check.js';
import { ScanContext, type ScanSettings } from './context.js';
import { describeEndpoint, discover } from './discover.js';
import type { ScanReport, SourceLocation } from './types.js';

/** Options of {@link runScan}: the settings, plus which eras and checks. */
export interface RunScanOptions extends Omit<ScanSettings, 'timeoutMs' | 'rateProbe'> {
  /** The eras to try, in order of preference; default both, 2026-07-28 first. */
  readonly eras?: readonly McpEra[];
  /** The checks to run; default {@link SCAN_CHECKS}. */
  readonly checks?: readonly ScanCheck[];
  /** Per request; default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Most refused calls the rate check sends to one tool; default 100. */
  readonly rateProbe?: number;
  /** Tool definitions in the project's sources, for SARIF locations. */
  readonly sources?: { readonly root: string; readonly tools: Readonly<Record<string, SourceLocation>> };
}

/**
 * Scans one MCP server from outside: greets it in both eras, lists its
 * tools, runs every check and returns the report. By default it sends only
 * requests a correct server refuses before any tool runs; calls with valid
 * arguments need `allowCalls` (and `allowWrites` for tools that may write).
 * It never follows a URL the server returns. Throws `ScanUnreachableError`
 * when nothing answers.
 *
 * @example
 * const report = await runScan({ endpoint: { transport: 'http', url: new URL(url), credential: { authorization: `Bearer ${token}` } }, credential: 'token', public: false, allowCalls: false, allowWrites: false });
 */
export async function runScan(options: RunScanOptions): Promise<ScanReport> {
  const started = Date.now();
  const settings: ScanSettings = {
    ...options,
    timeoutMs: options.timeoutMs ?? 10_000,
    rateProbe: options.rateProbe ?? 100,
  };
  const discovery = await discover(
    settings.endpoint,
    options.eras ?? ['2026-07-28', '2025-11-25'],
    settings.timeoutMs,
  );
  const ctx = new ScanContext(settings, discovery);
  const outcomes = [];
  try {
    for (const check of options.checks ?? SCAN_CHECKS) outcomes.push(...(await check.run(ctx)));
  } finally {
    await ctx.close();
  }
  return {
    target: describeEndpoint(settings.endpoint),
    transport: settings.endpoint.transport,
    eras: discovery.eras,
    ...(discovery.server ? { server: discovery.server } : {}),
    tools: discovery.tools.map((tool) => tool.name),
    mode: {
      credential: settings.credential,
      public: settings.public,
      allowCalls: settings.allowCalls,
      allowWrites: settings.allowWrites,
    },
    outcomes,
    ...(options.sources ? { sources: options.sources.tools, sourceRoot: options.sources.root } : {}),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
  };
}
