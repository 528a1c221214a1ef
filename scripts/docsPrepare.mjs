#!/usr/bin/env node
// Writes the generated parts of the docs site before VitePress builds it (both
// git-ignored): the API reference under docs/api/, made by TypeDoc from the
// TSDoc of every public entry point the packages export, and docs/repo/, one
// page per repository file a page links to that is not itself a page (the root
// README, bench/README.md, an example's source).
// `node scripts/docsPrepare.mjs` (both); `--repo-pages` (only the second, fast).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { API_DIR, DOCS, isWrittenPage, REPO, REPO_PAGES, repoPageOf, repoTargetOf } from './docsLinks.mjs';

/** Subpath exports that are no public API: `./internal` is shared between the packages, with no semver promise. */
const NOT_PUBLIC = new Set(['./package.json', './internal']);

/** Every public entry point: `[import name, source file]`, from each package's `exports`. */
export function publicEntryPoints() {
  const entries = [];
  for (const folder of readdirSync(join(REPO, 'packages')).sort()) {
    const manifest = join(REPO, 'packages', folder, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      if (NOT_PUBLIC.has(subpath)) continue;
      const built =
        typeof target === 'string' ? target : JSON.stringify(target).match(/"\.\/dist\/([\w/]+)\.js"/)?.[0];
      const name = built?.match(/dist\/([\w/]+)\.js/)?.[1];
      const source = name && join(REPO, 'packages', folder, 'src', `${name}.ts`);
      if (!source || !existsSync(source)) {
        throw new Error(
          `${pkg.name} exports ${subpath}, but no source file matches it (expected src/<name>.ts)`,
        );
      }
      entries.push([subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, source]);
    }
  }
  return entries;
}

async function writeApiReference() {
  const { Application, Converter, ReflectionKind } = await import('typedoc');
  const entries = publicEntryPoints();
  const nameOf = new Map(entries.map(([name, source]) => [source, name]));
  rmSync(API_DIR, { recursive: true, force: true });
  const app = await Application.bootstrapWithPlugins({
    entryPoints: entries.map(([, source]) => source),
    entryPointStrategy: 'resolve',
    tsconfig: join(DOCS, '.vitepress', 'tsconfig.api.json'),
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out: API_DIR,
    docsRoot: DOCS,
    readme: 'none',
    name: 'API reference',
    entryFileName: 'index',
    // `npm run typecheck` checks the sources; TypeDoc only reads their declarations and TSDoc.
    skipErrorChecking: true,
    excludePrivate: true,
    excludeInternal: true,
    disableSources: true,
    hidePageHeader: true,
    useCodeBlocks: true,
    // explicit ids on members, so links into the reference do not depend on how headings are slugged
    useHTMLAnchors: true,
    parametersFormat: 'table',
    sidebar: { pretty: true },
    // One page per entry point: its exports are its sections (the outline, and search results land on them).
    outputFileStrategy: 'modules',
  });
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Module)) return;
    const file = context.project.getSymbolIdFromReflection(reflection)?.fileName;
    const name = file && nameOf.get(file);
    if (name) reflection.name = name;
  });
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the entry points (see its messages above).');
  await app.generateOutputs(project);
  if (app.logger.hasErrors()) throw new Error('TypeDoc reported errors (see above).');
  repairUnderscoreLinks();
  console.log(`api: ${entries.length} entry points → ${relative(REPO, API_DIR)}`);
}

/** The API pages (absolute paths). */
const apiPages = (folder = API_DIR) =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return apiPages(path);
    return path.endsWith('.md') ? [path] : [];
  });

/**
 * typedoc-plugin-markdown gives a member named with underscores the anchor
 * `error_codes` but links it as `#error-codes`: point such links at the anchor.
 */
function repairUnderscoreLinks() {
  const pages = apiPages();
  const anchors = new Map(
    pages.map((page) => [
      page,
      new Set([...readFileSync(page, 'utf8').matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1])),
    ]),
  );
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    const next = text.replace(/\]\(([^)#\s]*)#([\w-]+)\)/g, (link, path, anchor) => {
      const target = path ? join(dirname(page), path) : page;
      const ids = anchors.get(target);
      const underscored = anchor.replace(/-/g, '_');
      return ids && !ids.has(anchor) && ids.has(underscored) ? `](${path}#${underscored})` : link;
    });
    if (next !== text) writeFileSync(page, next);
  }
}

/** Markdown link targets of a page's text, outside code; images stay Vite's (it bundles them). */
function linksOf(markdown) {
  const text = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/(!?)\[(?:[^[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .filter((m) => m[1] !== '!')
    .map((m) => m[2] ?? '');
}

/** All written pages of the site, absolute. */
function writtenPages(folder = DOCS) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : writtenPages(path);
    return isWrittenPage(path) ? [path] : [];
  });
}

const fenceFor = (text) =>
  '`'.repeat(Math.max(3, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length + 1)));
const LANGUAGES = {
  ts: 'ts',
  mts: 'ts',
  mjs: 'js',
  js: 'js',
  json: 'json',
  sh: 'sh',
  sql: 'sql',
  yaml: 'yaml',
};

/** The page that shows one repository file or folder; its `origin` tells the site config where its links start. */
function repoPage(repoPath) {
  const absolute = join(REPO, repoPath);
  const front = `---\norigin: ${JSON.stringify(repoPath)}\n---\n\n`;
  if (statSync(absolute).isDirectory()) {
    const files = execFileSync('git', ['ls-files', '--', repoPath], { cwd: REPO, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((file) => `- \`${relative(repoPath, file)}\``);
    return `${front}# \`${repoPath}/\`\n\nThe files of this folder in the repository:\n\n${files.join('\n')}\n`;
  }
  const text = readFileSync(absolute, 'utf8');
  if (repoPath.endsWith('.md')) return front + text;
  const fence = fenceFor(text);
  const language = LANGUAGES[repoPath.split('.').pop() ?? ''] ?? 'text';
  return `${front}# \`${repoPath}\`\n\n${fence}${language}\n${text.replace(/\n$/, '')}\n${fence}\n`;
}

/** Writes a page for every repository file the pages (and those files, when markdown) link to. */
export function writeRepoPages() {
  rmSync(REPO_PAGES, { recursive: true, force: true });
  const queue = [...writtenPages(), join(REPO, 'README.md')];
  const made = new Set(['README.md']);
  for (let i = 0; i < queue.length; i++) {
    const origin = queue[i];
    if (origin === undefined || !origin.endsWith('.md')) continue;
    for (const href of linksOf(readFileSync(origin, 'utf8'))) {
      const repoPath = repoTargetOf(href, origin);
      if (repoPath === undefined || made.has(repoPath)) continue;
      made.add(repoPath);
      queue.push(join(REPO, repoPath));
    }
  }
  for (const repoPath of made) {
    const page = repoPageOf(repoPath);
    mkdirSync(dirname(page), { recursive: true });
    writeFileSync(page, repoPage(repoPath));
  }
  console.log(`repo pages: ${made.size} → ${relative(REPO, REPO_PAGES)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeRepoPages();
  if (!process.argv.includes('--repo-pages')) await writeApiReference();
}
