/**
 * The built docs site in Chromium: the home page and its navigation, a guide
 * page with its code, figures and screenshots, the local search from a typed
 * query to the page it finds, the API reference; and every internal link of
 * every built page resolving to a built file (and its #fragment to an element).
 * The site is the one `npm run docs:build` wrote, built here first when it is
 * missing or older than its sources.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  browserAvailable,
  describeWithBrowser,
  launchBrowser,
  type TestBrowser,
} from '../../../test/chromium.js';
import { brokenLinks, builtPages, ensureBuiltSite, serveSite } from './builtSite.js';

/** A build of the whole site (TypeDoc, then VitePress) takes one to three minutes. */
const BUILD_TIMEOUT_MS = 600_000;

beforeAll(() => ensureBuiltSite(), BUILD_TIMEOUT_MS);

it('links every built page only to built files, and every #fragment to an element of its page', () => {
  expect(builtPages().length).toBeGreaterThan(60);
  expect(brokenLinks()).toEqual([]);
});

const availability = await browserAvailable();

describeWithBrowser(availability, 'the docs site in a browser', () => {
  let site: Awaited<ReturnType<typeof serveSite>>;
  let chromium: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    site = await serveSite();
    chromium = await launchBrowser();
    page = await (await chromium.person()).newPage();
  });
  afterAll(async () => {
    await chromium?.close();
    await site?.close();
  });

  const open = async (path: string) => {
    const response = await page.goto(new URL(path, site.url).href);
    expect(response?.status(), path).toBe(200);
  };

  it('opens the home page with the guide’s navigation, and follows it to a page', async () => {
    await open('/');
    expect(await page.title()).toContain('Gatehouse');
    await expect
      .poll(() => page.locator('main h1').first().textContent())
      .toContain('Gatehouse documentation');
    const sidebar = page.locator('.VPSidebar');
    for (const group of [
      'Start',
      'Concepts',
      'Guards',
      'Serving',
      'Stores',
      'Testing',
      'Operating',
      'Reference',
    ]) {
      expect(await sidebar.getByText(group, { exact: true }).count(), group).toBeGreaterThan(0);
    }
    await sidebar.getByRole('link', { name: 'Install', exact: true }).click();
    await page.waitForURL(/\/install\.html$/);
    // the router changes the URL before it renders the page: wait for the page's heading
    await expect.poll(() => page.locator('main h1').first().textContent()).toContain('Install');
  });

  it('shows a guide page with its code, the benchmark figures and the pages’ screenshots', async () => {
    await open('/guards.html');
    expect(await page.locator('main div[class*="language-ts"] pre').count()).toBeGreaterThan(5);

    await open('/benchmarks.html');
    const rows = await page.locator('main table tbody tr').count();
    expect(rows).toBeGreaterThan(20);
    expect(await page.locator('main').textContent()).toMatch(/req\/s/);

    await open('/operator-pages.html');
    const images = page.locator('main img[src*="assets/"]');
    await expect.poll(() => images.count()).toBeGreaterThanOrEqual(10);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('main img')].every((img) => (img as HTMLImageElement).complete),
    );
    const widths = await images.evaluateAll((all) =>
      all.map((img) => (img as HTMLImageElement).naturalWidth),
    );
    expect(
      widths.every((width) => width > 100),
      widths.join(', '),
    ).toBe(true);
  });

  it('finds a page through the local search: type a query, click a result, land on that page', async () => {
    await open('/');
    await page.getByRole('button', { name: 'Search' }).first().click();
    const input = page.locator('.VPLocalSearchBox input');
    await input.fill('kill switch');
    const result = page.locator('.VPLocalSearchBox .result', { hasText: 'Kill switches' }).first();
    await result.waitFor();
    await result.click();
    await page.waitForURL(/\/access\/kill-switch\.html/);
    await expect.poll(() => page.locator('main h1').first().textContent()).toContain('Kill switch');
  });

  it('reaches the API reference of a package, generated from its TSDoc', async () => {
    await open('/api/');
    await page.locator('main').getByRole('link', { name: '@gatehousejs/guards', exact: true }).click();
    await page.waitForURL(/\/api\/@gatehousejs\/guards\.html$/);
    const main = page.locator('main');
    // the URL changes before the client-side router has rendered the page
    await expect.poll(() => main.locator('h1').first().textContent()).toContain('@gatehousejs/guards');
    expect(await main.locator('h3#standardguards').count()).toBe(1);
  });
});
