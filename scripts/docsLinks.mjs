/**
 * Where a link written on a documentation page goes on the docs site.
 *
 * The pages are `docs/**\/*.md`. A page also links to repository files that
 * are not pages (the root README, `bench/README.md`, an example's source); the
 * site build makes a page of each such file under `docs/repo/` (git-ignored),
 * at the file's repository path, and the site's markdown points the link there.
 * The same rule serves the build that writes those pages and the site config
 * that rewrites the links, so the two cannot disagree.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (absolute, no trailing separator). */
export const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** The site's source folder. */
export const DOCS = join(REPO, 'docs');
/** Generated, git-ignored: TypeDoc's API reference. */
export const API_DIR = join(DOCS, 'api');
/** Generated, git-ignored: pages made of repository files the pages link to. */
export const REPO_PAGES = join(DOCS, 'repo');

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

const inside = (folder, path) => path === folder || path.startsWith(folder + sep);
const posix = (path) => path.split(sep).join('/');

/** Whether an absolute path is a page of the site, written or generated. */
export function isSitePage(path) {
  return inside(DOCS, path) && path.endsWith('.md') && !inside(join(DOCS, '.vitepress'), path);
}

/** Whether an absolute path is a page the site builds from `docs/` as written. */
export function isWrittenPage(path) {
  return isSitePage(path) && !inside(REPO_PAGES, path) && !inside(API_DIR, path);
}

/** The generated page (absolute path) that shows a repository file or folder given by its repository path. */
export function repoPageOf(repoPath) {
  const absolute = join(REPO, repoPath);
  if (existsSync(absolute) && statSync(absolute).isDirectory()) return join(REPO_PAGES, repoPath, 'index.md');
  return join(REPO_PAGES, repoPath.endsWith('.md') ? repoPath : `${repoPath}.md`);
}

/**
 * The repository file (repository path) a relative link written in `origin`
 * (the absolute path of the markdown file the text comes from) points to, when
 * that target is in the repository but is not a written page; else undefined.
 */
export function repoTargetOf(href, origin) {
  if (EXTERNAL.test(href) || href.startsWith('#') || href.startsWith('/')) return undefined;
  const path = href.split('#')[0] ?? '';
  if (path === '') return undefined;
  const target = resolve(dirname(origin), decodeURIComponent(path));
  if (!inside(REPO, target) || isSitePage(target) || !existsSync(target)) return undefined;
  return posix(relative(REPO, target));
}

/**
 * The href to render for a link written in `origin` and shown on the page
 * `page` (both absolute; they differ for a page made of a repository file).
 * A written page's own links come back unchanged unless they leave the pages.
 */
export function siteHref(href, origin, page) {
  if (EXTERNAL.test(href) || href.startsWith('#') || href.startsWith('/')) return href;
  const [path = '', hash] = href.split('#');
  if (path === '') return href;
  const suffix = hash === undefined ? '' : `#${hash}`;
  const repoPath = repoTargetOf(href, origin);
  const target =
    repoPath === undefined ? resolve(dirname(origin), decodeURIComponent(path)) : repoPageOf(repoPath);
  if (repoPath === undefined && origin === page) return href;
  const link = posix(relative(dirname(page), target));
  return (link.startsWith('.') ? link : `./${link}`) + suffix;
}
