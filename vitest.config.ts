import { defineConfig } from 'vitest/config';
import projects from './vitest.workspace.js';

export default defineConfig({
  test: {
    projects,
    // vitest's default is one worker fewer than the cores, so a single worker on a
    // two-core machine; the suite waits on I/O and child processes often enough to use both.
    maxWorkers: 2,
    passWithNoTests: false,
  },
});
