/** A workspace of the repository: its folder (relative to the root) and its package.json. */
export interface Workspace {
  readonly dir: string;
  readonly manifest: Manifest;
}

/** The fields of a package.json the release checks read. */
export interface Manifest {
  readonly name?: string;
  readonly version?: string;
  readonly private?: boolean;
  readonly scripts?: Readonly<Record<string, string>>;
  readonly publishConfig?: Readonly<Record<string, unknown>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly [field: string]: unknown;
}

/** The package scope, `@gatehousejs/`. */
export declare const SCOPE: string;
/** The prepack every published package runs. */
export declare const PREPACK: string;
/** Every workspace of the repository at `root`. */
export declare function workspaceManifests(root: string): Workspace[];
/** The workspaces that would be published (not private). */
export declare function publishedOf(workspaces: readonly Workspace[]): Workspace[];
/** The published packages a project installs: all but `@gatehousejs/create`, which `npm create` runs. */
export declare function installableOf(workspaces: readonly Workspace[]): Workspace[];
/** The version the published packages share, or undefined. */
export declare function workspaceVersion(workspaces: readonly Workspace[]): string | undefined;
/** Every problem of the manifests, as sentences naming package, field and range. */
export declare function manifestProblems(workspaces: readonly Workspace[]): string[];
/** Every problem of .changeset/config.json against the workspaces. */
export declare function changesetProblems(config: unknown, workspaces: readonly Workspace[]): string[];
