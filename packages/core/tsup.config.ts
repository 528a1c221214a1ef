import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

export default defineConfig(
  packageBuild([
    'src/index.ts',
    'src/http.ts',
    'src/node.ts',
    'src/stdio.ts',
    'src/sdkV1.ts',
    'src/internal.ts',
    'src/otel.ts',
  ]),
);
