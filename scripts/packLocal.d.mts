/** The tarball folder named by `args`, resolved from `base`; throws a usage error otherwise. */
export declare function targetOf(args: readonly string[], base: string): string;
