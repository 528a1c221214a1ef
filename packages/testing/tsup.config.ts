import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

export default defineConfig(packageBuild(['src/index.ts', 'src/vitest.ts', 'src/fuzz.ts', 'src/cli.ts']));
