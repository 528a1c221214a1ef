/** A workspace: its folder (relative to the root) and its package.json. */
export interface Workspace {
  readonly dir: string;
  readonly manifest: { readonly name?: string; readonly [key: string]: unknown };
}
/** The workspaces `targets` (package names) are, with every workspace they depend on, dependencies first. */
export declare function buildOrderOf(targets: readonly string[]): Workspace[];
/** Builds each package of `buildOrderOf(targets)` whose dist is not current; throws when a build fails. */
export declare function buildCurrent(targets: readonly string[], log?: (line: string) => void): void;
