import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// `shims` gives the CommonJS build the `import.meta.url` that locates the templates.
export default defineConfig(
  packageBuild(['src/index.ts', 'src/cli.ts']).map((options) => ({ ...options, shims: true })),
);
