/**
 * Replays property tests: with `FC_SEED=<n>` (and optionally `FC_PATH=<path>`
 * from a failure report) every fast-check run in the test files, and the
 * contract fuzzer, starts from that seed instead of a random one. Registered
 * as a setup file of every test project in `vitest.workspace.ts`.
 */
const seed = process.env.FC_SEED;
const path = process.env.FC_PATH;

if (seed !== undefined && seed !== '') {
  const value = Number(seed);
  if (!Number.isSafeInteger(value))
    throw new TypeError(`FC_SEED must be an integer, got ${JSON.stringify(seed)}`);
  const { default: fc } = await import('fast-check');
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: value, ...(path ? { path } : {}) });
} else if (path) {
  throw new TypeError('FC_PATH replays a run only together with the FC_SEED it was reported with');
}
