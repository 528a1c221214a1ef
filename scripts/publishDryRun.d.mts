import type { Manifest, Workspace } from './releaseManifests.mjs';

/** The address every registry of the dry run points at; it refuses connections. */
export declare const REFUSING_REGISTRY: string;
/** npm flags pointing the registry and the scope's registry at REFUSING_REGISTRY. */
export declare function refusingRegistryFlags(): string[];
/** The workspaces, each after the workspace packages it depends on. */
export declare function dependencyOrder(workspaces: readonly Workspace[]): Workspace[];
/** The JSON document that ends npm's output. */
export declare function trailingJson(stdout: string): unknown;
/** What a publish listing of `manifest` lacks or holds too much of. */
export declare function listingProblems(manifest: Manifest, files: readonly string[]): string[];
