import type { McpEra } from '../types.js';

/** A check's verdict: held, broken, does not apply (with why), or could not be observed (with why). */
export type Verdict = 'pass' | 'fail' | 'not-applicable' | 'undetermined';

/** One request the scan sent and the first lines of what came back. */
export interface Evidence {
  /** The request: method, what it carried, the headers that matter (credentials never shown). */
  readonly request: string;
  /** The answer: status and its first lines, clipped, with secrets masked. */
  readonly answer: string;
}

/** The verdict of one check, for the server or one tool. */
export interface ScanOutcome {
  /** The check id, e.g. `I14.unknown-arguments`. */
  readonly check: string;
  /** The invariant it shows, e.g. `I14`. */
  readonly invariant: string;
  readonly title: string;
  /** The tool judged; undefined for a server-wide check. */
  readonly tool?: string;
  /** The protocol era the requests spoke, when the check ran per era. */
  readonly era?: McpEra;
  readonly verdict: Verdict;
  /** Why the check does not apply or could not be observed. */
  readonly reason?: string;
  /** What is wrong (fail), one sentence each. */
  readonly findings: readonly string[];
  /** The requests behind the verdict (at most a few). */
  readonly evidence: readonly Evidence[];
}

/** A tool as `tools/list` shows it, with what the scan reads from its hints. */
export interface ScanTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema: unknown;
  readonly annotations: Readonly<Record<string, unknown>>;
  /** `readOnlyHint: true`: a hint only; the scan never trusts it to send a valid call unasked. */
  readonly readOnly: boolean;
  /** May destroy or act outward by its hints (MCP's defaults: yes, unless read-only or said otherwise). */
  readonly outward: boolean;
  /** Takes a `confirm_token`: the second step of a two-step action, not a first. */
  readonly confirmStep: boolean;
}

/** Safe arguments per tool, from the fixture file (`--fixture`). */
export interface ScanFixtureTool {
  /** Arguments that are safe to send to this tool. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The tool writes or acts outward, whatever its hints say: calling it needs `--allow-writes`. */
  readonly writes?: boolean;
}

/** The fixture file: safe arguments per tool, by name. */
export interface ScanFixture {
  readonly tools: Readonly<Record<string, ScanFixtureTool>>;
}

/** Where a tool is defined in the project's sources, for SARIF. */
export interface SourceLocation {
  /** The path relative to the source root, `/`-separated. */
  readonly file: string;
  readonly line: number;
}

/** Everything a scan found, in the order the checks ran. */
export interface ScanReport {
  /** The URL or the stdio command scanned. */
  readonly target: string;
  readonly transport: 'http' | 'stdio';
  /** The eras the server spoke, first the one the tool checks used. */
  readonly eras: readonly McpEra[];
  /** The server's name and version, as it announced them. */
  readonly server?: { readonly name?: string; readonly version?: string };
  readonly tools: readonly string[];
  /** What the scan was allowed to do. */
  readonly mode: {
    readonly credential: 'token' | 'headers' | 'none';
    readonly public: boolean;
    readonly allowCalls: boolean;
    readonly allowWrites: boolean;
  };
  readonly outcomes: readonly ScanOutcome[];
  /** Tool definitions found in the project's sources, by tool name (SARIF locations). */
  readonly sources?: Readonly<Record<string, SourceLocation>>;
  /** Where `sources` paths start, absolute. */
  readonly sourceRoot?: string;
  readonly startedAt: string;
  readonly durationMs: number;
}
