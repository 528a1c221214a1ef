import { fileURLToPath } from 'node:url';
import { defaultExclude, type TestProjectInlineConfiguration } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Workspace sources, so tests run against `src` without a build. Most specific first. */
export const alias = [
  { find: '@gatehousejs/core/node', replacement: src('./packages/core/src/node.ts') },
  { find: '@gatehousejs/core/http', replacement: src('./packages/core/src/http.ts') },
  { find: '@gatehousejs/core/sdk-v1', replacement: src('./packages/core/src/sdkV1.ts') },
  { find: '@gatehousejs/core/internal', replacement: src('./packages/core/src/internal.ts') },
  { find: '@gatehousejs/core/stdio', replacement: src('./packages/core/src/stdio.ts') },
  { find: '@gatehousejs/core/otel', replacement: src('./packages/core/src/otel.ts') },
  { find: '@gatehousejs/core', replacement: src('./packages/core/src/index.ts') },
  { find: '@gatehousejs/presenters', replacement: src('./packages/presenters/src/index.ts') },
  { find: '@gatehousejs/guards', replacement: src('./packages/guards/src/index.ts') },
  { find: '@gatehousejs/access', replacement: src('./packages/access/src/index.ts') },
  { find: '@gatehousejs/console', replacement: src('./packages/console/src/index.ts') },
  { find: '@gatehousejs/oauth', replacement: src('./packages/oauth/src/index.ts') },
  { find: '@gatehousejs/stores/postgres', replacement: src('./packages/stores/src/postgres.ts') },
  { find: '@gatehousejs/stores', replacement: src('./packages/stores/src/index.ts') },
  { find: '@gatehousejs/testing/vitest', replacement: src('./packages/testing/src/vitest.ts') },
  { find: '@gatehousejs/testing/fuzz', replacement: src('./packages/testing/src/fuzz.ts') },
  { find: '@gatehousejs/testing', replacement: src('./packages/testing/src/index.ts') },
  { find: '@gatehousejs/create', replacement: src('./packages/create/src/index.ts') },
];

/** Replays fast-check runs from `FC_SEED` (and `FC_PATH`); registered for every project. */
const setupFiles = [src('./test/fastCheckSeed.ts')];

/** Test files that start other processes (stdio servers, crashed writers, restarts). */
const PROCESS_TESTS: Readonly<Record<string, readonly string[]>> = {
  stores: ['test/processes.test.ts', 'test/lockWait.test.ts'],
  testing: [
    'test/stdioClient.test.ts',
    'test/contract/stdio.test.ts',
    'test/contract/sdkClients.test.ts',
    'test/scan/sdkServers.test.ts',
    'test/scan/booking.test.ts',
    'test/scan/plantedFlaws.test.ts',
  ],
  booking: [
    'test/restart.test.ts',
    'test/contractV1StdioProcesses.test.ts',
    'test/shutdown.test.ts',
    'test/replicas/postgres.test.ts',
    'test/replicas/sqlite.test.ts',
    'test/telemetryExport.test.ts',
    'test/oauthMetadataHttps.test.ts',
    'test/oauthRestart.test.ts',
    'test/replicas/postgresStop.test.ts',
    'test/crashRetry.test.ts',
    'test/outageAnswers.test.ts',
    'test/concurrentStarts.test.ts',
    'test/diskSyncs.test.ts',
    'test/walSyncs.test.ts',
  ],
  repo: ['test/throwawayPostgres.test.ts'],
};

/**
 * The contract suite run again over another wire: SDK v1 clients and
 * servers, and the tee that sends every request to the native and the SDK
 * path. Each package's first run of the suite stays in `test:fast`; these
 * repeat it (15–45 s each), so they run in `<package>-wires`, in the full
 * `npm test` only.
 */
const WIRE_TESTS: Readonly<Record<string, readonly string[]>> = {
  testing: [
    'test/contract/v1.test.ts',
    'test/contract/v1Stateful.test.ts',
    'test/contract/nativeTee.test.ts',
  ],
  booking: ['test/contractV1StdioV1Client.test.ts'],
};

/**
 * Browser tests of the console and the booking pages (Chromium through
 * playwright-core), in their own projects, `console-browser` and `booking-browser`. Project names: a plain name runs in
 * `npm run test:fast`; a hyphenated one (`<package>-processes`,
 * `booking-browser`) only in the full `npm test`, since test:fast runs
 * `vitest run --project '!*-*'` (vitest ORs repeated `--project` filters, so
 * two negated ones would exclude nothing).
 */
const BROWSER_TESTS = 'test/browser/**/*.test.ts';

/**
 * Gatehouse mounted on Express, Fastify, Hono and as a Next.js route handler
 * (`test/mount`): each file starts its framework on a real port, so they run
 * as their own project, `mount-frameworks`, in the full `npm test` only.
 */
const MOUNT_TESTS = 'test/mount/**/*.test.ts';

const project = (
  name: string,
  root: string,
  include = ['src/**/*.test.ts', 'test/**/*.test.ts'],
  exclude: readonly string[] = [],
): TestProjectInlineConfiguration => ({
  resolve: { alias },
  test: {
    name,
    root,
    include,
    exclude: [...defaultExclude, ...exclude],
    setupFiles,
    // Files of an in-process project share a worker's module graph instead of importing
    // every module again per file (import was a third of test:fast's time). So a test must
    // leave no module-level state behind: no vi.mock, fake timers restored, env and globals
    // untouched. Projects that start processes or a browser stay isolated (see `isolated`).
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});

/**
 * A project whose files each get their own module graph: the ones that start
 * processes or a browser keep module-level fixtures (built bundles, a running
 * cluster, exit handlers) that must not outlive their file.
 */
const isolated = (base: TestProjectInlineConfiguration): TestProjectInlineConfiguration => ({
  ...base,
  test: { ...base.test, isolate: true },
});

/**
 * A package's tests as two projects: `<name>` runs in this process (unit,
 * contract, in-process servers; `npm run test:fast`), `<name>-processes`
 * holds the files that start other processes and `<name>-wires` the contract
 * suite's repeat runs over other wires (`npm test` runs all three).
 * `elsewhere`: files of the package that another project runs.
 */
const split = (
  name: string,
  root: string,
  elsewhere: readonly string[] = [],
): TestProjectInlineConfiguration[] => {
  const spawning = PROCESS_TESTS[name] ?? [];
  const wires = WIRE_TESTS[name] ?? [];
  return [
    project(name, root, undefined, [...spawning, ...wires, ...elsewhere]),
    ...(spawning.length > 0 ? [isolated(project(`${name}-processes`, root, [...spawning]))] : []),
    ...(wires.length > 0 ? [project(`${name}-wires`, root, [...wires])] : []),
  ];
};

/** Pages in Chromium (`<name>-browser`): a browser start takes 1–2 s, a page flow several round trips. */
const browserProject = (name: string, root: string): TestProjectInlineConfiguration => {
  const base = isolated(project(`${name}-browser`, root, [BROWSER_TESTS]));
  return { ...base, test: { ...base.test, testTimeout: 60_000, hookTimeout: 60_000 } };
};

/** The test projects; vitest 4 reads them through `vitest.config.ts` (`test.projects`). */
export default [
  ...split('core', './packages/core'),
  ...split('presenters', './packages/presenters'),
  ...split('guards', './packages/guards'),
  ...split('access', './packages/access'),
  ...split('stores', './packages/stores'),
  ...split('console', './packages/console', [BROWSER_TESTS]),
  browserProject('console', './packages/console'),
  ...split('oauth', './packages/oauth'),
  ...split('testing', './packages/testing'),
  ...split('create', './packages/create'),
  ...split('booking', './examples/booking', [BROWSER_TESTS]),
  browserProject('booking', './examples/booking'),
  project('docs', './docs', ['**/*.test.ts'], [BROWSER_TESTS]),
  browserProject('docs', './docs'), // the built site in Chromium, its links
  ...split('repo', '.', [MOUNT_TESTS]),
  isolated(project('mount-frameworks', '.', [MOUNT_TESTS])),
];
