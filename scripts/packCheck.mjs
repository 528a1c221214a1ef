// Pack-and-install check: what an adopter gets from the registry, proven before publishing.
// Run after `npm run build`. The packing is shared with the create check (scripts/packing.mjs):
//   1. `npm pack` every package into a temporary directory, with the build just made:
//      `--ignore-scripts` skips each package's `prepack` (a second build of the same
//      sources; `npm run check:publish` proves that prepack builds a clean package);
//   2. install the tarballs into a fresh project with the install lines of docs/install.md
//      (package names replaced by tarball paths, one `npm install`; plus @gatehousejs/create,
//      which `npm create` runs, and the optional peers
//      `pg` of the PostgreSQL entry and `@opentelemetry/api` of the otel entry), the @gatehousejs scope
//      pointed at a registry that refuses, so nothing of that scope comes from the network;
//   3. import every entry from ESM and require it from CommonJS (the vitest entry must fail
//      with vitest's own message: vitest refuses require());
//   4. type-check the README's first server and the package READMEs' examples under the
//      node16, nodenext and bundler module settings with typescript 5.9.3 (strict; nodenext
//      also with skipLibCheck off, so the shipped declarations are checked too);
//   5. compile and run the first server, and call its tool through the installed RawHttpClient;
//      run the presenters and stores README examples.
// Install scripts are skipped: the packages must have none, and better-sqlite3's native
// build (minutes of C compilation, nothing of Gatehouse) is reused from the workspace when
// the versions match, and rebuilt otherwise.
// Prints one line per check; exits 1 naming every failed check. KEEP=1 keeps the temporary
// project for inspection.
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import {
  causeOf,
  firstLine,
  nativeSqlite,
  PACKAGES,
  packAll,
  REFUSING_REGISTRY,
  reporter,
  root,
  sh,
} from './packing.mjs';

/** Runs a command; rejects with its exit code and output (the scan's exit code is part of its answer). */
const run = promisify(execFile);

const TYPESCRIPT = 'typescript@5.9.3';
const EXTRA_DEV = [TYPESCRIPT, '@types/node@^20'];
/**
 * Optional peers an entry loads, installed so every entry can be imported and required:
 * `pg` for `@gatehousejs/stores/postgres` (its types for the stores README's example);
 * `@opentelemetry/api` for the types `@gatehousejs/core/otel` declares (the entry itself
 * loads nothing of it: the host passes the module in).
 */
const OPTIONAL_PEERS = ['pg@^8.11.0', '@types/pg@^8', '@opentelemetry/api@~1.9.0'];
const VITEST_REFUSAL = 'Vitest cannot be imported in a CommonJS module using require()';
const { report, finish } = reporter('pack check');
/** Run by `npm create @gatehousejs`, never installed by the docs: installed here beside them, so its entries load and its README example type-checks. */
const RUN_BY_NPM_CREATE = ['@gatehousejs/create'];

/** The fenced blocks of one language in a markdown text. */
function fencedBlocks(markdown, lang) {
  const blocks = [];
  const pattern = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm');
  for (const match of markdown.matchAll(pattern)) blocks.push(match[1]);
  return blocks;
}

/**
 * Every package named by an `npm install` in the sh blocks of docs/install.md. Tarball paths
 * (the route before the first release, `npm run pack:local`) are not package names: the
 * tarballs this check installs stand for them.
 */
function documentedInstall() {
  const specs = [];
  const isPath = (word) => /^[./~]/.test(word) || word.endsWith('.tgz');
  for (const block of fencedBlocks(readFileSync(join(root, 'docs/install.md'), 'utf8'), 'sh')) {
    for (const line of block.split('\n')) {
      for (const command of line.replace(/#.*$/, '').split('&&')) {
        const words = command.trim().split(/\s+/);
        if (words[0] !== 'npm' || (words[1] !== 'install' && words[1] !== 'i')) continue;
        specs.push(...words.slice(2).filter((w) => w && !w.startsWith('-') && !isPath(w)));
      }
    }
  }
  if (!specs.some((s) => s.startsWith('@gatehousejs/'))) throw new Error('docs/install.md names no package.');
  return specs;
}

const nameOf = (spec) => spec.replace(/^(@?[^@]+)@.*$/, '$1');

async function install(app, tarballs) {
  const pkg = {
    name: 'gatehouse-pack-check',
    version: '0.0.0',
    private: true,
    type: 'module',
  };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  // Nothing of the scope may come from a registry: only the tarballs can satisfy it.
  // npm still asks the scope's registry while it resolves one tarball's sibling ranges; refused at once, not retried
  // with backoff (minutes), it takes the tarball
  writeFileSync(join(app, '.npmrc'), `@gatehousejs:registry=${REFUSING_REGISTRY}\nfetch-retries=0\n`);
  const specs = new Map();
  for (const spec of [...documentedInstall(), ...RUN_BY_NPM_CREATE, ...EXTRA_DEV, ...OPTIONAL_PEERS]) {
    const name = nameOf(spec);
    specs.set(name, tarballs.get(name) ?? spec);
  }
  const missing = [...tarballs.keys()].filter((name) => !specs.has(name));
  if (missing.length) throw new Error(`docs/install.md never installs ${missing.join(', ')}.`);
  const started = Date.now();
  // the registry is slow at times: packages already in npm's cache are taken from it, and the install may take 10 minutes
  await sh(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', ...specs.values()],
    {
      cwd: app,
      timeout: 600_000,
    },
  );
  report(
    true,
    'npm install',
    `${[...specs.keys()].join(' ')} (${Math.round((Date.now() - started) / 1000)} s)`,
  );
  for (const name of tarballs.keys()) {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8'));
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8'));
    const resolved = lock.packages[`node_modules/${name}`]?.resolved ?? '';
    report(resolved.startsWith('file:'), `installed ${name}@${manifest.version} from its tarball`, resolved);
  }
  await nativeSqlite(app, report);
}

/** `name` and `name/sub` for every key of each installed package's exports map. */
function entriesOf(app) {
  const entries = [];
  for (const name of PACKAGES) {
    const manifest = JSON.parse(
      readFileSync(join(app, 'node_modules/@gatehousejs', name, 'package.json'), 'utf8'),
    );
    for (const key of Object.keys(manifest.exports)) {
      if (key !== './package.json') entries.push(`@gatehousejs/${name}${key.slice(1)}`);
    }
  }
  return entries;
}

const ESM_PROBE =
  'const m = await import(process.argv[1]); console.log(JSON.stringify(Object.keys(m).sort()));';
const CJS_PROBE = 'const m = require(process.argv[1]); console.log(JSON.stringify(Object.keys(m).sort()));';

async function probe(app, kind, entry) {
  const args = kind === 'esm' ? ['--input-type=module', '-e', ESM_PROBE] : ['-e', CJS_PROBE];
  const { stdout } = await sh(process.execPath, [...args, entry], { cwd: app });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

/** Both probes of one entry, as report lines (printed in entry order once all are done). */
async function entryLines(app, entry) {
  const lines = [];
  let esm;
  try {
    esm = await probe(app, 'esm', entry);
    lines.push([esm.length > 0, `import  ${entry}`, `${esm.length} exports`]);
  } catch (error) {
    lines.push([false, `import  ${entry}`, causeOf(error)]);
  }
  const vitestEntry = entry === '@gatehousejs/testing/vitest';
  try {
    const cjs = await probe(app, 'cjs', entry);
    const same = esm !== undefined && JSON.stringify(cjs) === JSON.stringify(esm);
    if (vitestEntry)
      lines.push([false, `require ${entry}`, 'loaded, yet vitest refuses require(): update the docs']);
    else
      lines.push([
        same,
        `require ${entry}`,
        same ? `${cjs.length} exports, the same names as ESM` : 'names differ',
      ]);
  } catch (error) {
    if (vitestEntry && error.message.includes(VITEST_REFUSAL)) {
      lines.push([true, `require ${entry}`, `refused by vitest itself, as documented: "${VITEST_REFUSAL}"`]);
    } else {
      lines.push([false, `require ${entry}`, causeOf(error)]);
    }
  }
  return lines;
}

async function checkEntries(app) {
  const entries = entriesOf(app);
  const results = [];
  for (let i = 0; i < entries.length; i += 4) {
    results.push(...(await Promise.all(entries.slice(i, i + 4).map((e) => entryLines(app, e)))));
  }
  for (const line of results.flat()) report(...line);
}

/** The README's first server and each shipped package README's example, as files of the project. */
function writeSources(app) {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split('\n## A first server\n')[1]?.split('\n## ')[0];
  const server = section && fencedBlocks(section, 'ts')[0];
  if (!server) throw new Error('README.md has no ts block under "## A first server".');
  mkdirSync(join(app, 'src'), { recursive: true });
  writeFileSync(join(app, 'src/firstServer.ts'), server);
  for (const name of PACKAGES) {
    const file = join(app, 'node_modules/@gatehousejs', name, 'README.md');
    if (!existsSync(file)) continue; // reported by the pack line
    const text = readFileSync(file, 'utf8');
    fencedBlocks(text, 'ts').forEach((code, i) => {
      writeFileSync(join(app, `src/readme-${name}-${i + 1}.ts`), code);
    });
  }
  return readdirSync(join(app, 'src')).length;
}

const STRICT = {
  strict: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  skipLibCheck: false,
  target: 'es2022',
  lib: ['es2023'],
  types: ['node'],
};

const RESOLUTIONS = {
  node16: { module: 'node16', moduleResolution: 'node16' },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};

/**
 * One tsc run per module setting, in parallel. nodenext also checks every declaration
 * file (skipLibCheck off) and emits to `out/`, which the run checks execute.
 */
async function typecheck(app, files) {
  const tsc = join(app, 'node_modules/typescript/bin/tsc');
  const { stdout: version } = await sh(process.execPath, [tsc, '--version'], { cwd: app });
  const runs = Object.entries(RESOLUTIONS).map(async ([label, resolution]) => {
    const full = label === 'nodenext';
    const compilerOptions = {
      ...STRICT,
      ...resolution,
      skipLibCheck: !full,
      ...(full ? { outDir: 'out' } : { noEmit: true }),
    };
    writeFileSync(
      join(app, `tsconfig.${label}.json`),
      JSON.stringify({ compilerOptions, include: ['src'] }, null, 2),
    );
    try {
      await sh(process.execPath, [tsc, '-p', `tsconfig.${label}.json`], { cwd: app });
      const what = `${files} files (the README's first server, the package READMEs' examples)`;
      return [true, `tsc ${label}`, `${what}, ${version.trim()}, skipLibCheck ${!full}`];
    } catch (error) {
      return [false, `tsc ${label}`, `\n${error.message.split('\n').slice(1).join('\n')}`];
    }
  });
  const results = await Promise.all(runs);
  for (const line of results) report(...line);
  return results.every(([ok]) => ok);
}

/** Runs a compiled file of `out/` to its end; resolves with its output. */
async function runExample(app, file) {
  const { stdout } = await sh(process.execPath, [join('out', file)], { cwd: app, timeout: 30_000 });
  return stdout;
}

async function runReadmeExamples(app) {
  try {
    const shown = await runExample(app, 'readme-presenters-1.js');
    const ok = shown.includes("'Ada Lovelace'") && !shown.includes('argon2id');
    report(ok, 'presenters README example runs', ok ? 'the password hash is not shown' : shown);
  } catch (error) {
    report(false, 'presenters README example runs', causeOf(error));
  }
  try {
    await runExample(app, 'readme-stores-1.js');
    const { stdout } = await sh('node', ['-e', TABLES], { cwd: app });
    report(stdout.includes('gatehouse_replay'), 'stores README example migrates app.db', stdout.trim());
  } catch (error) {
    report(false, 'stores README example migrates app.db', causeOf(error));
  }
}

const TABLES = `const Database = require('better-sqlite3');
const db = new Database('app.db', { readonly: true });
console.log(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all().join(' '));`;

/** Runs the compiled first server and calls its tool with the installed client. */
async function runFirstServer(app) {
  const token = crypto.randomUUID() + crypto.randomUUID();
  const child = spawn(process.execPath, ['out/firstServer.js'], {
    cwd: app,
    env: { ...process.env, NOTES_TOKEN: token, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  try {
    const url = await new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL printed within 15 s:\n${output}`)), 15_000);
      child.stdout.on('data', () => {
        const match = /on (http:\/\/\S+)/.exec(output);
        if (!match) return;
        clearTimeout(timer);
        ok(match[1]);
      });
      child.once('exit', (code) => fail(new Error(`the first server exited with ${code}:\n${output}`)));
    });
    report(
      !output.includes(token),
      'first server starts',
      `${firstLine(output)} (its output holds no token)`,
    );
    writeFileSync(join(app, 'client.mjs'), CLIENT);
    const { stdout } = await sh(process.execPath, ['client.mjs', url, token], { cwd: app });
    checkReplies(JSON.parse(stdout));
    await scanFirstServer(app, url, token);
  } finally {
    child.kill();
  }
}

/**
 * Runs the installed package's one bin the way its docs say, `npx
 * @gatehousejs/testing scan`, against the first server: it must print a JSON
 * report (exit 0, or 1 for a failed check) that names the server's tools and
 * never the token.
 */
async function scanFirstServer(app, url, token) {
  const args = ['--no-install', '@gatehousejs/testing', 'scan', url, '--token', token];
  args.push('--era', '2026-07-28', '--rate-probe', '4', '--format', 'json');
  let out = '';
  let code = 0;
  try {
    out = (await run('npx', args, { cwd: app, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 })).stdout;
  } catch (error) {
    out = error.stdout ?? '';
    code = typeof error.code === 'number' ? error.code : -1;
  }
  let scanned;
  try {
    scanned = JSON.parse(out);
  } catch {
    scanned = undefined;
  }
  const tools = scanned?.tools ?? [];
  report(
    (code === 0 || code === 1) && tools.includes('find_notes') && !out.includes(token),
    'npx @gatehousejs/testing scan runs the installed bin',
    `exit ${code}, ${scanned?.outcomes?.length ?? 0} outcomes, no token printed`,
  );
}

const CLIENT = `import { RawHttpClient } from '@gatehousejs/testing';
const [url, token] = process.argv.slice(2);
const as = (bearer) => new RawHttpClient({ url, era: '2026-07-28', headers: { authorization: 'Bearer ' + bearer } });
const found = await as(token).callTool('find_notes', { query: 'Ada' });
const widened = await as(token).callTool('find_notes', { query: 'Ada', workspace_id: 'ws_2' });
const stranger = await as('not-the-token').callTool('find_notes', { query: 'Ada' });
const legacy = new RawHttpClient({ url, era: '2025-11-25', headers: { authorization: 'Bearer ' + token } });
const old = await legacy.callTool('find_notes', { query: 'Ada' });
const pick = (r) => ({ status: r.status, result: r.result, text: r.text });
console.log(JSON.stringify({ found: pick(found), widened: pick(widened), stranger: pick(stranger), old: pick(old) }));
`;

function checkReplies({ found, widened, stranger, old }) {
  const expected = JSON.stringify({
    status: 'ok',
    result: { notes: [{ id: 'n1', text: 'Call Ada about the boiler' }] },
  });
  const got = JSON.stringify(found.result?.structuredContent);
  report(got === expected, 'find_notes answers through RawHttpClient (2026-07-28)', got);
  report(
    !found.text.includes('never shown') && !found.text.includes('ws_1'),
    'the note secret and workspace stay in',
  );
  const oldGot = JSON.stringify(old.result?.structuredContent);
  report(oldGot === expected, 'find_notes answers in the 2025-11-25 era', `HTTP ${old.status}`);
  const code = widened.result?.structuredContent?.error?.code;
  report(code === 'unknown_arguments', 'an unknown workspace_id is refused', String(code));
  report(stranger.status === 401, 'a wrong token answers 401', `HTTP ${stranger.status}`);
}

async function main() {
  const started = Date.now();
  const temp = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'));
  const app = join(temp, 'app');
  mkdirSync(join(temp, 'packs'));
  mkdirSync(app);
  try {
    const tarballs = await packAll(join(temp, 'packs'), report);
    await install(app, tarballs);
    await checkEntries(app);
    if (await typecheck(app, writeSources(app))) {
      await runFirstServer(app);
      await runReadmeExamples(app);
    }
  } catch (error) {
    report(false, 'pack check', error.message);
  } finally {
    if (process.env.KEEP) console.log(`kept ${temp}`);
    else rmSync(temp, { recursive: true, force: true });
  }
  finish(started);
}

await main();
