/** The Chromium binary: `CHROMIUM_PATH`, else Debian's. */
export declare const CHROMIUM_PATH: string;
/** Flags for a headless Chromium that talks only to loopback. */
export declare const CHROMIUM_ARGS: readonly string[];
