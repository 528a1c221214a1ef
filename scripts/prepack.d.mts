/** The files under dist/ a package.json points at. */
export declare function declaredOutputs(manifest: Record<string, unknown>): string[];
/** Why the package in `dir` must be built, or undefined when its dist is current. */
export declare function staleness(dir: string, root: string): string | undefined;
