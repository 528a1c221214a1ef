/**
 * The built docs site for its browser test: built when missing or older than
 * its sources, served from `docs/.vitepress/dist` by a small static server on
 * loopback, and its links read from every built page.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** Where `npm run docs:build` writes the site. */
export const DIST = join(REPO, 'docs', '.vitepress', 'dist');

/** Files under a folder, recursively (absolute paths). */
function filesUnder(folder: string, skip: (name: string) => boolean = () => false): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (skip(entry.name)) return [];
    const path = join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(path, skip) : [path];
  });
}

/** The newest change among what the site is built from: pages, config, build scripts, README, package sources. */
function newestSource(): number {
  const generated = new Set(['api', 'repo', 'cache', 'dist', 'node_modules']);
  const sources = [
    ...filesUnder(join(REPO, 'docs'), (name) => generated.has(name)),
    ...filesUnder(
      join(REPO, 'packages'),
      (name) => name === 'node_modules' || name === 'dist' || name === 'test',
    ),
    join(REPO, 'README.md'),
    join(REPO, 'scripts', 'docsPrepare.mjs'),
    join(REPO, 'scripts', 'docsLinks.mjs'),
  ];
  return Math.max(...sources.map((file) => statSync(file).mtimeMs));
}

/**
 * Builds the site (`npm run docs:build`) unless a build newer than every
 * source is there already (CI builds it in a step of its own before the tests).
 */
export async function ensureBuiltSite(): Promise<void> {
  const index = join(DIST, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs > newestSource()) return;
  await promisify(execFile)('npm', ['run', 'docs:build'], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The built file a URL path names, as a static host serves the site (`/x/` → `x/index.html`), or undefined. */
export function fileOf(pathname: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const file = resolve(DIST, `.${path.endsWith('/') ? `${path}index.html` : path}`);
  if (file !== DIST && !file.startsWith(DIST + sep)) return undefined;
  for (const candidate of [file, `${file}.html`]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The built site on a loopback port; closing it stops the server. */
export async function serveSite(): Promise<{ readonly url: URL; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://site').pathname;
    const file = fileOf(pathname);
    const status = file ? 200 : 404;
    const body = readFileSync(file ?? join(DIST, '404.html'));
    response.writeHead(status, {
      'content-type': TYPES[extname(file ?? '.html')] ?? 'application/octet-stream',
    });
    response.end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** Every built HTML page, as its URL path (`/access/kill-switch.html`). */
export function builtPages(): string[] {
  return filesUnder(DIST)
    .filter((file) => file.endsWith('.html'))
    .map((file) => `/${relative(DIST, file).split(sep).join('/')}`);
}

const ids = new Map<string, ReadonlySet<string>>();
/** The element ids of a built page (what a `#fragment` may name). */
function idsOf(file: string): ReadonlySet<string> {
  let found = ids.get(file);
  if (!found) {
    const html = readFileSync(file, 'utf8');
    found = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1] ?? ''));
    ids.set(file, found);
  }
  return found;
}

const decodeEntities = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/**
 * Every internal link of every built page that leads nowhere: an `<a href>`
 * or `<img src>` whose path is no built file, or whose `#fragment` names no
 * element of its page. One line each: `page → link (why)`.
 */
export function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const page of builtPages()) {
    const html = readFileSync(join(DIST, `.${page}`), 'utf8');
    const links = [...html.matchAll(/<(?:a|img)\s[^>]*?\s?(?:href|src)="([^"]*)"/g)].map((m) =>
      decodeEntities(m[1] ?? ''),
    );
    for (const link of links) {
      const target = new URL(link, `http://site${page}`);
      if (target.origin !== 'http://site') continue; // another site
      const file = fileOf(target.pathname);
      if (!file) {
        broken.push(`${page} → ${link} (no such file)`);
        continue;
      }
      const fragment = decodeURIComponent(target.hash.slice(1));
      if (fragment && file.endsWith('.html') && !idsOf(file).has(fragment)) {
        broken.push(`${page} → ${link} (no element #${fragment})`);
      }
    }
  }
  return broken;
}
