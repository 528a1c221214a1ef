// The create check: `npm create @gatehousejs` as an adopter runs it, proven before publishing.
// Run after `npm run build`:
//   1. pack every package (scripts/packing.mjs, shared with the pack check) and serve the
//      tarballs from a registry on loopback that knows nothing else: the @gatehousejs scope
//      points at it, so no package of the scope can come from the network;
//   2. for each store (memory; sqlite with the console; postgres with the console, in a
//      throwaway database on the local server), run `npm create @gatehousejs@<version>` with
//      flags (npm maps it to `npm exec @gatehousejs/create`), then `npm install` in the new
//      project (install scripts skipped; better-sqlite3's binding reused as in the pack check);
//   3. run the project's `npm test` (type check, contract suite, surface lock under CI, tests);
//   4. run `npm start`, read the MCP URL and the token it prints, and call every tool through
//      the project's installed RawHttpClient (scripts/createCalls.mjs), asserting effects in
//      the database (or the mail log line, in memory): a re-sent create stores one ticket, an
//      update with a stale version changes nothing, nothing is mailed before confirm_action, a
//      person's approval on the console deletes, list_recent_changes shows the writes; with
//      SQL, the ticket is still there after a restart and the first start's token is revoked.
// Prints one line per check; exits 1 naming every failed check. KEEP=1 keeps the projects.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import pg from 'pg';
import { clientOf, exercise, inspector, kitOf } from './createCalls.mjs';
import { causeOf, nativeSqlite, packAll, reporter, root, sh } from './packing.mjs';

const { report, finish } = reporter('create check');
const VARIANTS = [
  { store: 'memory', console: false },
  { store: 'sqlite', console: true },
  { store: 'postgres', console: true },
];
const POSTGRES = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const version = JSON.parse(readFileSync(join(root, 'packages/create/package.json'), 'utf8')).version;
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const stripAnsi = (text) => text.replace(ANSI, '');

/**
 * A registry on loopback serving the packed tarballs and nothing else (404 for any other
 * name), under a path of its own per run, so nothing cached from an earlier run is taken.
 */
async function scopeRegistry(tarballs) {
  const documents = new Map();
  const files = new Map();
  const integrity = new Map();
  const refused = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const document = documents.get(path);
    const file = files.get(path);
    if (document)
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    else if (file)
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
    else {
      refused.push(path);
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const prefix = `/r${randomBytes(6).toString('hex')}`;
  const url = `http://127.0.0.1:${server.address().port}${prefix}/`;
  for (const [name, file] of tarballs) {
    const manifest = JSON.parse(
      readFileSync(join(root, 'packages', name.split('/')[1], 'package.json'), 'utf8'),
    );
    const data = readFileSync(file);
    const tarball = `${prefix}/${name}/-/${basename(file)}`;
    files.set(tarball, file);
    integrity.set(name, `sha512-${createHash('sha512').update(data).digest('base64')}`);
    const dist = {
      tarball: `http://127.0.0.1:${server.address().port}${tarball}`,
      integrity: integrity.get(name),
      shasum: createHash('sha1').update(data).digest('hex'),
    };
    documents.set(`${prefix}/${name}`, {
      _id: name,
      name,
      'dist-tags': { latest: manifest.version },
      versions: { [manifest.version]: { ...manifest, _id: `${name}@${manifest.version}`, dist } },
    });
  }
  return { url, integrity, refused, close: () => new Promise((ok) => server.close(ok)) };
}

/** A database of its own on the local PostgreSQL server, dropped by `drop()`; undefined when none answers. */
async function throwawayPostgres() {
  const admin = new pg.Client({ connectionString: POSTGRES, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch (error) {
    return { problem: `no PostgreSQL at ${new URL(POSTGRES).host} (${causeOf(error)})` };
  }
  const name = `gatehouse_create_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    name,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** `npm create @gatehousejs@<version> <folder> -- <flags>`, with a fresh npm cache so npx runs this very package. */
async function scaffold(temp, registry, variant) {
  const folder = `app-${variant.store}`;
  const flags = ['--store', variant.store, variant.console ? '--console' : '--no-console', '--yes'];
  const args = ['create', `--@gatehousejs:registry=${registry.url}`, '--fetch-retries=0', '--yes'];
  const { stdout } = await sh('npm', [...args, `@gatehousejs@${version}`, folder, '--', ...flags], {
    cwd: temp,
    env: { ...process.env, CI: '1', npm_config_cache: join(temp, `npx-cache-${variant.store}`) },
  });
  const app = join(temp, folder);
  const made = existsSync(join(app, 'package.json')) && existsSync(join(app, 'test/contract.test.ts'));
  report(made, `npm create @gatehousejs@${version} ${folder} -- ${flags.join(' ')}`, stdout.split('\n')[0]);
  return app;
}

/** `npm install` of the new project as written; every @gatehousejs package from the loopback registry. */
async function install(app, registry, variant) {
  const started = Date.now();
  await sh(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--prefer-offline',
      '--fetch-retries=0',
      `--@gatehousejs:registry=${registry.url}`,
    ],
    { cwd: app, timeout: 900_000 },
  );
  const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8'));
  // npm records no `resolved` URL here; the integrity of each installed package is the packed tarball's
  const ours = Object.entries(lock.packages).filter(([path]) => path.includes('node_modules/@gatehousejs/'));
  const nameOf = (path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const foreign = ours.filter(([path, entry]) => entry.integrity !== registry.integrity.get(nameOf(path)));
  report(
    ours.length > 0 && foreign.length === 0,
    `npm install (${variant.store})`,
    `${ours.map(([path]) => nameOf(path)).join(' ')}: each the packed tarball, by integrity (${Math.round((Date.now() - started) / 1000)} s)` +
      (foreign.length ? `; not the packed tarball: ${foreign.map(([p]) => p).join(', ')}` : ''),
  );
  if (variant.store === 'sqlite') await nativeSqlite(app, report);
}

/** The project's `npm test` under CI (the surface lockfile is never written there). */
async function projectTests(app, env, variant) {
  const started = Date.now();
  try {
    const { stdout } = await sh('npm', ['test'], {
      cwd: app,
      env: { ...process.env, ...env, CI: '1' },
      timeout: 900_000,
    });
    const text = stripAnsi(stdout);
    const tests = /Tests\s+(\d+ passed[^\n]*)/.exec(text)?.[1] ?? '?';
    const files = /Test Files\s+([^\n]*)/.exec(text)?.[1] ?? '?';
    report(
      !/skipped|failed/.test(tests),
      `npm test (${variant.store})`,
      `${tests}; files ${files.trim()} (${Math.round((Date.now() - started) / 1000)} s)`,
    );
  } catch (error) {
    report(
      false,
      `npm test (${variant.store})`,
      `\n${stripAnsi(error.message).split('\n').slice(-40).join('\n')}`,
    );
  }
}

/** `npm start` in its own process group; resolves once the banner names the URL and the token. */
async function start(app, env) {
  const child = spawn('npm', ['start'], {
    cwd: app,
    env: { ...process.env, ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (output.stdout += d));
  child.stderr.on('data', (d) => (output.stderr += d));
  const exited = new Promise((ok) => child.once('exit', (code, signal) => ok({ code, signal })));
  const stop = async () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    return exited;
  };
  const banner = await new Promise((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`no banner within 180 s:\n${output.stdout}${output.stderr}`)),
      180_000,
    );
    const read = () => {
      const url = /^MCP URL\s+(\S+)/m.exec(output.stdout)?.[1];
      const token = /^Token\s+(\S+)/m.exec(output.stdout)?.[1];
      if (!url || !token || !output.stdout.includes('Ctrl+C')) return;
      clearTimeout(timer);
      ok({ url, token, signInLink: /Sign-in link[^:]*:\s+(\S+)/.exec(output.stdout)?.[1] });
    };
    child.stdout.on('data', read);
    exited.then(({ code }) =>
      fail(new Error(`npm start exited with ${code}:\n${output.stdout}${output.stderr}`)),
    );
  });
  return { ...banner, output, stop };
}

async function runVariant(temp, registry, variant) {
  const env = {};
  let database;
  if (variant.store === 'postgres') {
    database = await throwawayPostgres();
    if (database.problem) {
      const ci = process.env.CI === 'true' || process.env.CI === '1';
      report(!ci, `postgres project ${ci ? 'needs' : 'skipped:'} a server`, database.problem);
      return;
    }
    env.DATABASE_URL = database.url;
  }
  try {
    const app = await scaffold(temp, registry, variant);
    await install(app, registry, variant);
    await projectTests(app, env, variant);
    const inspect = inspector(app, variant, env);
    const served = await start(app, env);
    let title;
    try {
      report(
        !served.output.stdout.includes('postgres://'),
        `[${variant.store}] npm start serves ${served.url}`,
        'its banner names no connection string',
      );
      title = await exercise(app, variant, served, inspect, report);
    } finally {
      const { signal, code } = await served.stop();
      report(
        code === 0 || signal === 'SIGTERM',
        `[${variant.store}] npm start stops on SIGTERM`,
        `exit ${code ?? signal}`,
      );
    }
    if (inspect) await restarted(app, variant, env, served.token, title);
  } finally {
    await database?.drop?.();
  }
}

/** With SQL, a second `npm start` still has the ticket, and revoked the first start's token. */
async function restarted(app, variant, env, oldToken, title) {
  const served = await start(app, env);
  try {
    const as = clientOf(await kitOf(app), served.url);
    const found = await as(served.token).callTool('find_tickets', { query: title });
    const old = await as(oldToken).callTool('find_tickets', {});
    const tickets = found.result?.structuredContent?.result?.tickets ?? [];
    report(
      tickets.length === 1 && old.status === 401,
      `[${variant.store}] after a restart the ticket is still there, and the previous start's token answers 401`,
      `${tickets.length} ticket(s) titled "${title}", old token HTTP ${old.status}`,
    );
  } finally {
    await served.stop();
  }
}

async function main() {
  const started = Date.now();
  const temp = mkdtempSync(join(tmpdir(), 'gatehouse-create-'));
  mkdirSync(join(temp, 'packs'));
  let registry;
  try {
    const tarballs = await packAll(join(temp, 'packs'), report);
    registry = await scopeRegistry(tarballs);
    for (const variant of VARIANTS) {
      try {
        await runVariant(temp, registry, variant);
      } catch (error) {
        report(false, `${variant.store} project`, error.message);
      }
    }
    const asked = [...new Set(registry.refused)];
    console.log(
      `     the loopback registry was asked for no other name${asked.length ? ` but: ${asked.join(', ')}` : ''}`,
    );
  } catch (error) {
    report(false, 'create check', error.message);
  } finally {
    await registry?.close();
    if (process.env.KEEP) console.log(`kept ${temp}`);
    else rmSync(temp, { recursive: true, force: true });
  }
  finish(started);
}

await main();
