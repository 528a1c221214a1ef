/** The Node line the MCP conformance suite and the Inspector need. */
export declare const NODE_22: string;
/** Installs (or reuses) `node@22` and `pkg`; the Node 22 binary and the absolute path of `bin`. */
export declare function resolveNode22Tool(
  pkg: string,
  bin: string,
): { node: string; bin: string; version: string };
/** A free TCP port on the loopback address. */
export declare function freePort(): Promise<number>;
/** A started booking server: its MCP URL, a bearer token, `stop()`, its output and its CLI. */
export interface StartedBooking {
  readonly url: string;
  readonly token: string;
  stop(): Promise<void>;
  readonly output: string[];
  cli(args: readonly string[]): string;
}
/** Starts the booking example's built server on a fresh SQLite file; `publicUrl` makes its 401s name the resource metadata. */
export declare function startBooking(options: {
  label: string;
  publicUrl?: boolean;
}): Promise<StartedBooking>;
