// The install route before the first release, run as docs/install.md writes it: its
// `npm run pack:local -- ../my-app/… && cd ../my-app && npm install …` line, with `../my-app`
// a fresh project in a temporary folder, against the real registry (which has no
// @gatehousejs package yet, so every one must come from its tarball). Then every package
// must be installed from its tarball as a `file:` dependency, and each root entry (and
// `@gatehousejs/core/node`) must load. `@gatehousejs/stores` is installed but not loaded:
// its root entry loads better-sqlite3, an optional peer the line does not install.
// Run after `npm run build` (each prepack then finds dist current). KEEP=1 keeps the project.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { reporter, root } from './packing.mjs';
import { installableOf, workspaceManifests } from './releaseManifests.mjs';

const run = promisify(execFile);
const PLACEHOLDER = '../my-app';
const NOT_LOADED = new Set(['@gatehousejs/stores']);
const { report, finish } = reporter('local route');

/** The line of docs/install.md's sh blocks that runs `npm run pack:local`. */
export function documentedRoute(markdown) {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const lines = blocks.flatMap((b) => b.split('\n')).filter((l) => l.includes('npm run pack:local'));
  if (lines.length !== 1)
    throw new Error(`docs/install.md has ${lines.length} pack:local lines in sh blocks, not 1.`);
  const line = lines[0].replace(/\s+#.*$/, '').trim();
  if (!line.includes(PLACEHOLDER)) throw new Error(`the pack:local line names no ${PLACEHOLDER}: ${line}`);
  return line;
}

async function main() {
  const started = Date.now();
  const temp = mkdtempSync(join(tmpdir(), 'gatehouse-local-'));
  const app = join(temp, 'my-app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'my-app', private: true, type: 'module' })}\n`,
  );
  try {
    const line = documentedRoute(readFileSync(join(root, 'docs/install.md'), 'utf8')).replaceAll(
      PLACEHOLDER,
      app,
    );
    await run('sh', ['-c', line], {
      cwd: root,
      env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
    report(true, 'the documented line', `${Math.round((Date.now() - started) / 1000)} s`);
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8'));
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    for (const { manifest: pkg } of installableOf(workspaceManifests(root))) {
      const resolved = lock.packages[`node_modules/${pkg.name}`]?.resolved ?? 'not installed';
      const spec = manifest.dependencies?.[pkg.name] ?? 'not a dependency';
      report(
        resolved.startsWith('file:') && spec.startsWith('file:'),
        `${pkg.name} from its tarball`,
        `${spec}, resolved ${resolved}`,
      );
      if (NOT_LOADED.has(pkg.name)) continue;
      for (const entry of [
        pkg.name,
        ...(pkg.name === '@gatehousejs/core' ? ['@gatehousejs/core/node'] : []),
      ]) {
        try {
          const probe = 'const m = await import(process.argv[1]); console.log(Object.keys(m).length);';
          const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe, entry], {
            cwd: app,
          });
          report(Number(stdout.trim()) > 0, `import ${entry}`, `${stdout.trim()} exports`);
        } catch (error) {
          report(false, `import ${entry}`, String(error.stderr ?? error.message).split('\n')[0]);
        }
      }
    }
  } catch (error) {
    report(false, 'local route', `${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`.trim());
  } finally {
    if (process.env.KEEP) console.log(`kept ${temp}`);
    else rmSync(temp, { recursive: true, force: true });
  }
  finish(started);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
