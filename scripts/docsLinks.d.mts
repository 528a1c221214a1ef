/** The repository root (absolute, no trailing separator). */
export declare const REPO: string;
/** The site's source folder. */
export declare const DOCS: string;
/** Generated, git-ignored: TypeDoc's API reference. */
export declare const API_DIR: string;
/** Generated, git-ignored: pages made of repository files the pages link to. */
export declare const REPO_PAGES: string;
/** Whether an absolute path is a page of the site, written or generated. */
export declare function isSitePage(path: string): boolean;
/** Whether an absolute path is a page the site builds from `docs/` as written. */
export declare function isWrittenPage(path: string): boolean;
/** The generated page (absolute path) that shows a repository file or folder given by its repository path. */
export declare function repoPageOf(repoPath: string): string;
/** The repository path a relative link written in `origin` points to, when it is a repository file that is not a written page. */
export declare function repoTargetOf(href: string, origin: string): string | undefined;
/** The href to render for a link written in `origin` and shown on the page `page`. */
export declare function siteHref(href: string, origin: string, page: string): string;
