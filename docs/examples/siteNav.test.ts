import { readdirSync } from 'node:fs';
import type { DefaultTheme } from 'vitepress';
import { describe, expect, it } from 'vitest';
import config from '../.vitepress/config.mjs';

const links = (items: readonly DefaultTheme.SidebarItem[]): string[] =>
  items.flatMap((item) => [...(item.link ? [item.link] : []), ...links(item.items ?? [])]);

describe('the docs site navigation', () => {
  it('lists every written page in the guide’s sidebar, and nothing that is not a page', () => {
    const sidebar = config.themeConfig?.sidebar as Record<string, DefaultTheme.SidebarItem[]>;
    const listed = new Set(links(sidebar['/'] ?? []).map((link) => link.replace(/#.*$/, '')));
    const generated = /^(api|repo|\.vitepress|node_modules|examples|test)\//;
    const pages = readdirSync(new URL('../', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md') && !generated.test(name) && name !== 'README.md')
      .map((name) => `/${name.replace(/\.md$/, '')}`);
    expect(pages.filter((page) => !listed.has(page))).toEqual([]);
    const generatedLinks = new Set(['/repo/README', '/api/']);
    expect([...listed].filter((link) => !pages.includes(link) && !generatedLinks.has(link))).toEqual([]);
  });
});
