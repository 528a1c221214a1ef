import { isPlainObject } from '../internal/jsonRpc.js';
import type { McpEra } from '../types.js';
import type { Exchange } from './exchange.js';
import { type ScanEndpoint, ScanSession } from './session.js';
import type { ScanTool } from './types.js';

/** What discovery learned: the eras the server speaks, its tools, and why it could not list them. */
export interface Discovery {
  /** Spoken eras, the one the tool checks use first. */
  readonly eras: readonly McpEra[];
  readonly server?: { readonly name?: string; readonly version?: string };
  readonly tools: readonly ScanTool[];
  /** The first answer that refused the credential the scan was given (401 or 403), if any. */
  readonly refused?: Exchange;
  /** Each era's first answer, spoken or not, for the report. */
  readonly hellos: readonly Exchange[];
}

const UNREACHABLE_BRAND = Symbol.for('gatehouse.scan.unreachable');

/** The scan cannot run at all (nothing answered); the CLI exits 3. */
export class ScanUnreachableError extends Error {
  override readonly name = 'ScanUnreachableError';
  readonly [UNREACHABLE_BRAND] = true;

  /** True for a ScanUnreachableError, even one from another copy of this package. */
  static is(error: unknown): error is ScanUnreachableError {
    return typeof error === 'object' && error !== null && UNREACHABLE_BRAND in error;
  }
}

const MAX_PAGES = 20;

const asRecord = (value: unknown): Readonly<Record<string, unknown>> => (isPlainObject(value) ? value : {});

/** A listed tool with what the scan reads from its hints (MCP's defaults where a hint is missing). */
export function scanToolOf(raw: Readonly<Record<string, unknown>>): ScanTool {
  const annotations = asRecord(raw.annotations);
  const inputSchema = asRecord(raw.inputSchema);
  const readOnly = annotations.readOnlyHint === true;
  const outward = !readOnly && (annotations.destructiveHint !== false || annotations.openWorldHint !== false);
  const properties = asRecord(inputSchema.properties);
  return {
    name: String(raw.name),
    ...(typeof raw.title === 'string' ? { title: raw.title } : {}),
    description: typeof raw.description === 'string' ? raw.description : '',
    inputSchema,
    outputSchema: raw.outputSchema,
    annotations,
    readOnly,
    outward,
    confirmStep: 'confirm_token' in properties,
  };
}

function serverOf(result: Readonly<Record<string, unknown>> | undefined) {
  const info = asRecord(result?.serverInfo);
  const name = typeof info.name === 'string' ? info.name : undefined;
  const version = typeof info.version === 'string' ? info.version : undefined;
  return name === undefined && version === undefined
    ? undefined
    : { ...(name ? { name } : {}), ...(version ? { version } : {}) };
}

/** Lists every page of tools (following `nextCursor`, at most 20 pages). */
async function listAll(session: ScanSession): Promise<ScanTool[] | undefined> {
  const tools: ScanTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await session.request('tools/list', cursor === undefined ? {} : { cursor });
    const raw = listed.result?.tools;
    if (listed.status !== 200 || !Array.isArray(raw)) return page === 0 ? undefined : tools;
    tools.push(...raw.filter(isPlainObject).map(scanToolOf));
    const next = listed.result?.nextCursor;
    if (typeof next !== 'string' || next === '') break;
    cursor = next;
  }
  return tools;
}

/**
 * Greets the server in each era (2026-07-28 `server/discover`, 2025-11-25
 * `initialize`) with the credential given and lists its tools in the first
 * era it speaks. Throws {@link ScanUnreachableError} when no era got any
 * answer at all (nothing listens, or the process would not start).
 */
export async function discover(
  endpoint: ScanEndpoint,
  eras: readonly McpEra[],
  timeoutMs: number,
): Promise<Discovery> {
  const spoken: McpEra[] = [];
  const hellos: Exchange[] = [];
  let tools: ScanTool[] | undefined;
  let server: Discovery['server'];
  let refused: Exchange | undefined;
  for (const era of eras) {
    let session: ScanSession;
    try {
      session = await ScanSession.open(endpoint, era, 'given', timeoutMs);
    } catch (error) {
      throw new ScanUnreachableError(
        `could not start ${describeEndpoint(endpoint)}: ${(error as Error).message}`,
      );
    }
    try {
      const hello = await session.hello();
      hellos.push(hello);
      if (hello.status === 401 || hello.status === 403) refused ??= hello;
      if (hello.status !== 200 || hello.result === undefined) continue;
      spoken.push(era);
      server ??= serverOf(hello.result);
      tools ??= await listAll(session);
    } finally {
      await session.close();
    }
  }
  if (hellos.every((hello) => hello.failure !== undefined)) {
    const why = hellos.map((hello) => hello.failure).join('; ');
    throw new ScanUnreachableError(`no answer from ${describeEndpoint(endpoint)}: ${why}`);
  }
  return {
    eras: spoken,
    tools: tools ?? [],
    hellos,
    ...(server ? { server } : {}),
    ...(refused ? { refused } : {}),
  };
}

/** The endpoint in words: its URL, or its command line. */
export function describeEndpoint(endpoint: ScanEndpoint): string {
  return endpoint.transport === 'http' ? endpoint.url.href : [endpoint.command, ...endpoint.args].join(' ');
}
