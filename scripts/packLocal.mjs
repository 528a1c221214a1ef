// `npm run pack:local -- <target-dir>`: packs every published package of this workspace
// into <target-dir> (created if missing), dependencies first, each through its `prepack`
// (which builds it unless its dist is current), and prints the install line that takes
// them, for trying Gatehouse in another project before the packages are on the registry.
// A relative <target-dir> is taken from the folder npm was run in.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { dependencyOrder } from './publishDryRun.mjs';
import { installableOf, workspaceManifests } from './releaseManifests.mjs';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

/** The tarball folder from the command line, resolved where npm was run. */
export function targetOf(args, base) {
  const [target, ...rest] = args;
  if (!target || rest.length > 0 || target.startsWith('-')) {
    throw new Error(
      'Usage: npm run pack:local -- <target-dir> (one folder; the tarballs are written there).',
    );
  }
  const dir = resolve(base, target);
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new Error(`${target} exists and is not a folder.`);
  return dir;
}

async function main() {
  let target;
  try {
    target = targetOf(process.argv.slice(2), process.env.INIT_CWD ?? process.cwd());
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  mkdirSync(target, { recursive: true });
  const tarballs = [];
  for (const { dir, manifest } of dependencyOrder(installableOf(workspaceManifests(root)))) {
    try {
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', target], {
        cwd: resolve(root, dir),
        maxBuffer: 64 * 1024 * 1024,
      });
      const [info] = JSON.parse(stdout);
      tarballs.push(info.filename);
      console.log(
        `packed ${manifest.name}@${manifest.version}: ${info.filename}, ${info.files.length} files`,
      );
    } catch (error) {
      console.error(
        `npm pack of ${manifest.name} failed:\n${`${error.stdout ?? ''}${error.stderr ?? ''}`.trim()}`,
      );
      process.exit(1);
    }
  }
  const near = relative(process.env.INIT_CWD ?? process.cwd(), target);
  const shown = near === '' ? '.' : near.startsWith('../..') ? target : near;
  console.log(`\n${tarballs.length} tarballs in ${shown}. In your project (from its folder), for example:`);
  console.log(`  npm install ${tarballs.map((t) => resolve(target, t)).join(' ')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
