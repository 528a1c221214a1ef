/**
 * How the project starts Chromium for the booking pages' browser tests and
 * for the conformance suite's consent step: Debian's `chromium` (or
 * `CHROMIUM_PATH`), headless, talking only to loopback.
 */

/** The Chromium binary: `CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Flags for a headless Chromium in a container that talks only to loopback:
 * no sandbox (root in CI has no user namespaces for it), no GPU, and none of
 * the background traffic a fresh profile starts (QUIC, component updates,
 * sync, first-run pages), so a run sees only the requests it makes.
 */
export const CHROMIUM_ARGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]);
