/**
 * Screenshots of each operator page, 1000 px wide, from a seeded app with
 * person actions waiting. Every run takes them into a temp folder and checks
 * each page rendered (status 200, its stylesheet applied, a PNG of the right
 * width); `SCREENSHOTS=write` (`npm run screenshots --workspace
 * @gatehousejs/example-booking`) writes them to docs/images/pages/ for the docs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seededTemplate } from '../fixtures/testApp.js';
import { browserAvailable, describeWithBrowser, launchBrowser, type TestBrowser } from './browser.js';
import { openSite, PAGE_KIM, PEOPLE, request, type Site, submit } from './site.js';

const availability = await browserAvailable();

/** Where the docs keep the pictures. */
const DOCS_IMAGES = fileURLToPath(new URL('../../../../docs/images/pages/', import.meta.url));
const WIDTH = 1000;

/** The width and height a PNG declares in its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Fills the app with what an operator's morning looks like: two person actions waiting, a decided one, a token. */
async function morning(site: Site): Promise<{ pageId: string }> {
  const model = await site.model();
  const paging = await request(model, 'page_technician', PAGE_KIM);
  await request(model, 'delete_booking', { booking_id: 'bk_alan_check' });
  const dispatcher = await site.model(PEOPLE.dan);
  await request(dispatcher, 'page_technician', { ...PAGE_KIM, message: 'Ada’s boiler is leaking.' });
  return { pageId: paging.id };
}

describeWithBrowser(availability, 'screenshots of the operator pages', () => {
  let browser: TestBrowser;
  let dir: string;
  let template: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-screens-'));
    [browser, template] = await Promise.all([launchBrowser(), seededTemplate(dir)]);
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('renders every page with its stylesheet, 1000 px wide', async () => {
    await using site = await openSite(template);
    const { pageId } = await morning(site);
    const out = process.env.SCREENSHOTS === 'write' ? DOCS_IMAGES : join(dir, 'pages');
    mkdirSync(out, { recursive: true });
    const context = await browser.person();
    const page = await context.newPage();
    await page.setViewportSize({ width: WIDTH, height: 640 });

    const shoot = async (name: string, ready: (page: Page) => Promise<void> = async () => undefined) => {
      await ready(page);
      const rules = await page.evaluate(() =>
        [...document.styleSheets].reduce((n, sheet) => n + sheet.cssRules.length, 0),
      );
      expect(rules, `${name}: the stylesheet loaded`).toBeGreaterThan(0);
      const file = join(out, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      expect(pngSize(file).width, name).toBe(WIDTH);
    };

    const answered = await page.goto(`${site.origin}/signin?return=%2Fapprovals`);
    expect(answered?.status()).toBe(200);
    const { email } = await site.credentialsOf(PEOPLE.olivia);
    await page.locator('input[name=email]').fill(email);
    await shoot('signin');
    await page.locator('input[name=password]').fill((await site.credentialsOf(PEOPLE.olivia)).password);
    await submit(page, 'form[data-form=signin]', 'Sign in');

    await shoot('approvals', async (p) => {
      expect(await p.locator('a[data-approval-id]').count()).toBe(2);
    });
    await page.goto(`${site.origin}/approvals/${pageId}`);
    await shoot('approval', async (p) => {
      expect(await p.locator('form[data-action=approve]').count()).toBe(1);
    });
    await submit(page, 'form[data-action=approve]', 'Approve');
    await shoot('approval-executed', async (p) => {
      expect(await p.locator('[data-status]').getAttribute('data-status')).toBe('executed');
    });
    for (const [name, path] of [
      ['switches', '/switches'],
      ['tokens', '/tokens'],
      ['audit', '/audit'],
    ] as const) {
      const response = await page.goto(`${site.origin}${path}`);
      expect(response?.status(), path).toBe(200);
      await shoot(name);
    }
  });
});
