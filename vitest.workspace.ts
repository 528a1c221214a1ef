import { fileURLToPath } from 'node:url';
import type { TestProjectInlineConfiguration } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Workspace sources, so tests run against `src` without a build. Most specific first. */
export const alias = [
  { find: '@gatehousejs/core/node', replacement: src('./packages/core/src/node.ts') },
  { find: '@gatehousejs/core/http', replacement: src('./packages/core/src/http.ts') },
  { find: '@gatehousejs/core/sdk-v1', replacement: src('./packages/core/src/sdkV1.ts') },
  { find: '@gatehousejs/core/internal', replacement: src('./packages/core/src/internal.ts') },
  { find: '@gatehousejs/core/stdio', replacement: src('./packages/core/src/stdio.ts') },
  { find: '@gatehousejs/core', replacement: src('./packages/core/src/index.ts') },
  { find: '@gatehousejs/presenters', replacement: src('./packages/presenters/src/index.ts') },
  { find: '@gatehousejs/guards', replacement: src('./packages/guards/src/index.ts') },
  { find: '@gatehousejs/stores', replacement: src('./packages/stores/src/index.ts') },
  { find: '@gatehousejs/testing/vitest', replacement: src('./packages/testing/src/vitest.ts') },
  { find: '@gatehousejs/testing/fuzz', replacement: src('./packages/testing/src/fuzz.ts') },
  { find: '@gatehousejs/testing', replacement: src('./packages/testing/src/index.ts') },
];

const project = (
  name: string,
  root: string,
  include = ['src/**/*.test.ts', 'test/**/*.test.ts'],
): TestProjectInlineConfiguration => ({
  resolve: { alias },
  test: {
    name,
    root,
    include,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});

/** The test projects; vitest 4 reads them through `vitest.config.ts` (`test.projects`). */
export default [
  project('core', './packages/core'),
  project('presenters', './packages/presenters'),
  project('guards', './packages/guards'),
  project('stores', './packages/stores'),
  project('testing', './packages/testing'),
  project('booking', './examples/booking'),
  project('docs', './docs', ['**/*.test.ts']),
];
