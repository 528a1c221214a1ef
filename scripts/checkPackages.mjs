// Package checks for every published package: publint (exports map, files)
// and @arethetypeswrong/cli with the node16 profile (types resolve for ESM and CJS
// consumers; subpath exports cannot exist under the obsolete node10 resolution).
// Run after `npm run build`: attw's `npm pack` skips the packages' `prepack` (a second
// build of what was just built) through npm_config_ignore_scripts.
import { execFileSync } from 'node:child_process';

const packages = [
  'packages/core',
  'packages/presenters',
  'packages/guards',
  'packages/access',
  'packages/stores',
  'packages/console',
  'packages/oauth',
  'packages/testing',
  'packages/create',
];
let failed = false;
for (const dir of packages) {
  for (const [tool, args] of [
    ['publint', ['publint', dir, '--strict']],
    ['attw', ['attw', '--pack', dir, '--profile', 'node16', '--format', 'table-flipped']],
  ]) {
    try {
      const out = execFileSync('npx', ['--no-install', ...args], {
        encoding: 'utf8',
        env: { ...process.env, npm_config_ignore_scripts: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      console.log(`ok   ${tool} ${dir}`);
      if (process.env.VERBOSE) console.log(out);
    } catch (error) {
      failed = true;
      console.log(`FAIL ${tool} ${dir}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
  }
}
process.exit(failed ? 1 : 0);
