// What the pack check (packCheck.mjs) and the create check (createCheck.mjs) share: running
// commands, report lines, packing every package into tarballs, and better-sqlite3's native
// binding for a project installed with --ignore-scripts.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository's root folder. */
export const root = resolve(import.meta.dirname, '..');

/** Every published package, by folder under packages/. */
export const PACKAGES = [
  'core',
  'guards',
  'access',
  'presenters',
  'stores',
  'console',
  'oauth',
  'testing',
  'create',
];

/** A registry that refuses at once: point the @gatehousejs scope at it, and only tarballs can satisfy it. */
export const REFUSING_REGISTRY = 'http://127.0.0.1:9/';

/**
 * One line per check (`ok` or `FAIL`), the labels of the failed ones, and
 * `finish(started, note)`: the closing line of the check called `name`
 * (its seconds since `started`, the failures by label), exiting 1 on any.
 */
export function reporter(name) {
  const failures = [];
  const report = (ok, label, detail = '') => {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}${detail ? `: ${detail}` : ''}`);
    if (!ok) failures.push(label);
    return ok;
  };
  const finish = (started, note = '') => {
    const seconds = Math.round((Date.now() - started) / 1000);
    if (failures.length) {
      console.log(`\n${name} FAILED in ${seconds} s: ${failures.length} check(s): ${failures.join('; ')}`);
      process.exit(1);
    }
    console.log(`\n${name} passed in ${seconds} s${note ? `: ${note}` : ''}`);
  };
  return { report, failures, finish };
}

/** Runs a command; resolves with its output, rejects with stdout and stderr in the message. */
export async function sh(command, args, options = {}) {
  try {
    return await run(command, args, { maxBuffer: 64 * 1024 * 1024, timeout: 240_000, ...options });
  } catch (error) {
    const out = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
    throw new Error(`${command} ${args.join(' ')} failed:\n${out || error.message}`);
  }
}

/** The first line of a text that holds anything. */
export const firstLine = (text) =>
  String(text)
    .split('\n')
    .find((l) => l.trim())
    ?.trim() ?? '';

/** The first line of a failure that names the error. */
export const causeOf = (error) =>
  (error.message.split('\n').find((l) => /Error|Cannot|ERR_/.test(l)) ?? firstLine(error.message)).trim();

/**
 * `npm pack` of each package into `packDir`, reporting per package its file count, whether
 * its README is in, and that it has no install scripts. Resolves with `@gatehousejs/<name>`
 * → the tarball's path. Refuses a package that was not built.
 */
export async function packAll(packDir, report, packages = PACKAGES) {
  const tarballs = new Map();
  for (const name of packages) {
    const dir = join(root, 'packages', name);
    if (!existsSync(join(dir, 'dist')))
      throw new Error(`packages/${name}/dist is missing: run npm run build first.`);
    const { stdout } = await sh(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir],
      { cwd: dir },
    );
    const [info] = JSON.parse(stdout);
    const hasReadme = info.files.some((f) => f.path === 'README.md');
    const scripts = Object.keys(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts ?? {});
    const installScripts = scripts.filter((s) => /^(pre|post)?install$|^prepare$/.test(s));
    report(
      hasReadme && installScripts.length === 0,
      `pack @gatehousejs/${name}`,
      `${info.filename}, ${info.files.length} files, ${hasReadme ? 'README.md included' : 'README.md MISSING'}` +
        (installScripts.length ? `, install scripts: ${installScripts.join(', ')}` : ', no install scripts'),
    );
    tarballs.set(`@gatehousejs/${name}`, join(packDir, info.filename));
  }
  return tarballs;
}

const OPEN_MEMORY_DB = "new (require('better-sqlite3'))(':memory:').close()";

/**
 * better-sqlite3's native binding in a project installed with --ignore-scripts (its build is
 * minutes of C compilation, nothing of Gatehouse): the workspace's build when the versions
 * match and it loads in this Node, else a rebuild.
 */
export async function nativeSqlite(app, report) {
  const version = (dir) => JSON.parse(readFileSync(join(dir, 'better-sqlite3/package.json'), 'utf8')).version;
  const ours = join(root, 'node_modules');
  const binding = 'better-sqlite3/build/Release/better_sqlite3.node';
  const wanted = version(join(app, 'node_modules'));
  if (existsSync(join(ours, binding)) && version(ours) === wanted) {
    mkdirSync(join(app, 'node_modules', dirname(binding)), { recursive: true });
    copyFileSync(join(ours, binding), join(app, 'node_modules', binding));
    try {
      await sh(process.execPath, ['-e', OPEN_MEMORY_DB], { cwd: app });
      report(true, `better-sqlite3 ${wanted}`, 'native binding reused from the workspace build');
      return;
    } catch {
      // Built for another Node ABI: build it for this one.
    }
  }
  await sh('npm', ['rebuild', 'better-sqlite3'], { cwd: app });
  await sh(process.execPath, ['-e', OPEN_MEMORY_DB], { cwd: app });
  report(true, `better-sqlite3 ${wanted}`, 'native binding built for this Node');
}
