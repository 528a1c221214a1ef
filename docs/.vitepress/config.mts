import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DefaultTheme, defineConfig } from 'vitepress';
import { API_DIR, DOCS, REPO, siteHref } from '../../scripts/docsLinks.mjs';

/** A sidebar entry for a written page, left out while the page does not exist (pages other branches add). */
const page = (file: string, text: string): DefaultTheme.SidebarItem[] =>
  existsSync(join(DOCS, `${file}.md`)) ? [{ text, link: `/${file}` }] : [];

/** The guide in the order a reader needs it: start, concepts, guards, serving, stores, testing, operating. */
const guide: DefaultTheme.SidebarItem[] = [
  {
    text: 'Start',
    items: [
      { text: 'Overview', link: '/repo/README' },
      ...page('install', 'Install'),
      { text: 'A first server', link: '/repo/README#a-first-server' },
      ...page('create', 'Create a project'),
      ...page('connecting-a-client', 'Connecting a client'),
      ...page('booking-example', 'The booking example'),
    ],
  },
  {
    text: 'Concepts',
    items: [
      ...page('defining-tools', 'Defining tools'),
      ...page('effects', 'Effect classes'),
      ...page('pipeline', 'The call pipeline'),
      ...page('invariants', 'Invariants'),
      ...page('errors', 'Errors'),
      {
        text: 'Presenters',
        collapsed: true,
        items: [
          ...page('presenters/field-lists', 'Field lists and versions'),
          ...page('presenters/untrusted-text', 'Untrusted text'),
          ...page('presenters/time', 'Time'),
          ...page('presenters/money', 'Money'),
        ],
      },
    ],
  },
  {
    text: 'Guards',
    items: [
      ...page('guards', 'Guards catalogue'),
      {
        text: 'Access',
        collapsed: true,
        items: [
          ...page('access/credentials', 'Credentials'),
          ...page('access/tenant-binding', 'Tenant binding'),
          ...page('access/live-rights', 'Live rights'),
          ...page('access/visibility', 'Visibility'),
          ...page('access/rate-limits', 'Rate buckets'),
          ...page('access/kill-switch', 'Kill switches'),
        ],
      },
      {
        text: 'Writes',
        collapsed: true,
        items: [
          ...page('writes/replay', 'Replay protection'),
          ...page('writes/duplicates', 'Duplicate creates'),
          ...page('writes/versions', 'Versions'),
          ...page('writes/batches', 'Batches'),
          ...page('writes/audit', 'Audit'),
          ...page('writes/effect-ports', 'Enforced effect classes'),
        ],
      },
      ...page('confirm', 'Two-step confirm'),
    ],
  },
  {
    text: 'Serving',
    items: [
      ...page('serving', 'Serving'),
      ...page('server-options', 'Server options'),
      ...page('mounting', 'Mounting'),
      ...page('replicas', 'Replicas'),
      ...page('oauth', 'OAuth'),
      ...page('console', 'The console'),
      ...page('approval', 'Approval by a person'),
      ...page('operator-pages', 'Operator pages'),
    ],
  },
  {
    text: 'Stores',
    items: [...page('storage', 'Storage interfaces'), ...page('stores', 'SQLite and PostgreSQL stores')],
  },
  {
    text: 'Testing',
    items: [
      ...page('testing', 'Testing'),
      ...page('contract-suite', 'The contract suite'),
      ...page('contract-checks', 'Contract checks'),
      ...page('surface-lock', 'Surface lock'),
      ...page('scan', 'Scanning any MCP server'),
      ...page('conformance', 'Conformance'),
      ...page('browser-tests', 'Browser tests'),
    ],
  },
  {
    text: 'Operating',
    items: [
      ...page('telemetry', 'Tracing and metrics'),
      ...page('benchmarks', 'Benchmarks'),
      ...page('migrating-from-sdk-v1', 'Migrating from SDK v1'),
      ...page('releasing', 'Releasing'),
    ],
  },
  { text: 'Reference', items: [{ text: 'API reference', link: '/api/' }] },
];

/** A heading's id as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** TypeDoc's sidebar for the API pages (written by `scripts/docsPrepare.mjs`). */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = join(API_DIR, 'typedoc-sidebar.json');
  const modules = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[])
    : [];
  return [
    { text: 'API reference', link: '/api/', items: modules },
    { text: 'Guide', link: '/' },
  ];
}

export default defineConfig({
  title: 'Gatehouse',
  description: 'A policy framework for building safe MCP servers in TypeScript.',
  // docs/README.md is the index on GitHub and the home page here.
  rewrites: { 'README.md': 'index.md' },
  // Type-checked example sources and their tests, not pages.
  srcExclude: ['examples/**'],
  cleanUrls: false,
  // The local search index (about 2 MB, loaded when search opens) and the largest API pages
  // (core, testing: one page per entry point) are single chunks by design.
  vite: { build: { chunkSizeWarningLimit: 2_500 } },
  markdown: {
    // `{ … }` in the pages is text (pipeline tables), not attributes.
    attrs: { disable: true },
    // Headings get GitHub's ids, so the pages' #links work here as they do on GitHub.
    anchor: { slugify: githubSlug },
    config(md) {
      const open = md.renderer.rules.link_open;
      if (!open) throw new Error('VitePress no longer renders links itself: adapt the link rewriting.');
      md.renderer.rules.link_open = (tokens, index, options, env, self) => {
        const token = tokens[index];
        const href = token?.attrGet('href');
        if (token && href && typeof env.path === 'string') {
          const origin =
            typeof env.frontmatter?.origin === 'string' ? join(REPO, env.frontmatter.origin) : env.path;
          token.attrSet('href', siteHref(href, origin, env.path));
        }
        return open(tokens, index, options, env, self);
      };
    },
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/install' },
      { text: 'Guards', link: '/guards' },
      { text: 'Benchmarks', link: '/benchmarks' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: { '/api/': apiSidebar(), '/': guide },
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
});
