/**
 * The pictures of every console page in the docs, and the proof they are
 * current. The product runs on a frozen clock over freshly seeded data, the
 * same morning every run: two person actions waiting, one approved, one
 * rejected. For each page the test takes a picture 1000 px wide, checks that
 * axe-core finds no serious or critical accessibility violation, and
 * compares a digest of the page's normalised DOM (ids, tokens, ports and
 * hashes, OAuth client ids, interaction ids and milliseconds blanked) with the one stored beside its picture in
 * docs/images/pages/: a page that changes without a new picture fails.
 * `SCREENSHOTS=write` (`npm run screenshots --workspace
 * @gatehousejs/example-booking`) writes pictures and digests.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  browserAvailable,
  describeWithBrowser,
  launchBrowser,
  seriousViolations,
  type TestBrowser,
} from '../../../../test/chromium.js';
import { authorizeQuery, pkce, registerClient } from '../fixtures/oauthFlow.js';
import { openSite, PAGE_KIM, PEOPLE, request, type Site, submit } from './site.js';

const availability = await browserAvailable();

/** Where the docs keep the pictures and their digests. */
const DOCS_IMAGES = fileURLToPath(new URL('../../../../docs/images/pages/', import.meta.url));
const WIDTH = 1000;
/**
 * A Tuesday morning in Berlin: every run shows the same times, "in 3 days"
 * included. The clock moves one millisecond per reading, so rows written one
 * after the other keep their order (ids sort by time) and no shown minute moves.
 */
const FROZEN = Date.parse('2027-03-02T08:00:00Z');
let readings = 0;
const clock = () => new Date(FROZEN + readings++);
const WRITE = process.env.SCREENSHOTS === 'write';

/** The width a PNG declares in its IHDR chunk. */
function pngWidth(file: string): number {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return bytes.readUInt32BE(16);
}

/**
 * The page's DOM with what differs between runs blanked: ULIDs of actions,
 * tokens and rows, one-time tokens and links, CSRF tokens and content
 * hashes, the test server's port.
 */
export function normalisedDom(html: string, origin: string, clientId: string): string {
  return (
    html
      .replaceAll(origin, 'ORIGIN')
      .replace(/\b([a-z]+_)?[0-9A-HJKMNP-TV-Z]{26}\b/g, '$1ULID')
      .replace(/\b([a-z]{2,3})_[0-9a-f]{12}\b/g, '$1_ID')
      .replace(/\bghmcp_[A-Za-z0-9_-]{20,}/g, 'ghmcp_TOKEN')
      .replace(/\b[0-9a-f]{64}\b/g, 'HEX')
      .replace(/\bbkl_[A-Za-z0-9_-]{20,}/g, 'bkl_LINK')
      .replace(/\/oauth\/consent\/[A-Za-z0-9_-]+/g, '/oauth/consent/UID')
      // the clock ticks a millisecond per reading: how many readings a page took is not the page
      .replace(/(T\d{2}:\d{2}:\d{2})\.\d{3}Z/g, '$1Z')
      .replaceAll(clientId, 'CLIENT_ID')
  );
}

const digestOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** Fills the app with an operator's morning: two person actions waiting, one approved, one rejected. */
async function morning(site: Site) {
  const model = await site.model();
  const paging = await request(model, 'page_technician', PAGE_KIM);
  const deleting = await request(model, 'delete_booking', { booking_id: 'bk_alan_check' });
  const dispatcher = await site.model(PEOPLE.dan);
  const approved = await request(dispatcher, 'page_technician', {
    ...PAGE_KIM,
    message: 'Ada’s boiler is leaking.',
  });
  const rejected = await request(model, 'page_technician', { ...PAGE_KIM, message: 'Call Ada back.' });
  return { paging, deleting, approved, rejected };
}

describeWithBrowser(availability, 'the console pages in the docs', () => {
  let browser: TestBrowser;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-screens-'));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('pictures every page on a frozen clock; each is accessible and matches the digest beside its picture', async () => {
    readings = 0;
    await using site = await openSite('', { clock, oauth: { dynamicRegistration: true } });
    const { paging, deleting, approved, rejected } = await morning(site);
    const clientId = await registerClient(site.origin, 'Desk Client');
    const out = WRITE ? DOCS_IMAGES : join(dir, 'pages');
    mkdirSync(out, { recursive: true });
    const context = await browser.person();
    const page = await context.newPage();
    await page.setViewportSize({ width: WIDTH, height: 640 });
    const stale: string[] = [];

    const shoot = async (name: string, ready: (page: Page) => Promise<void> = async () => undefined) => {
      await ready(page);
      const rules = await page.evaluate(() =>
        [...document.styleSheets].reduce((n, s) => n + s.cssRules.length, 0),
      );
      expect(rules, `${name}: the stylesheet loaded`).toBeGreaterThan(0);
      expect(await seriousViolations(page), `${name}: accessibility`).toEqual([]);
      const dom = normalisedDom(await page.content(), site.origin, clientId);
      if (process.env.DUMP_DOM) writeFileSync(join(process.env.DUMP_DOM, `${name}.html`), dom);
      const file = join(out, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      expect(pngWidth(file), name).toBe(WIDTH);
      const digest = digestOf(dom);
      const stored = join(DOCS_IMAGES, `${name}.digest`);
      if (WRITE) writeFileSync(stored, `${digest}\n`);
      else if (!existsSync(stored) || readFileSync(stored, 'utf8').trim() !== digest) stale.push(name);
    };

    expect((await page.goto(`${site.origin}/signin?return=%2Fapprovals`))?.status()).toBe(200);
    const { email, password } = await site.credentialsOf(PEOPLE.olivia);
    await page.locator('input[name=email]').fill(email);
    await shoot('signin');
    await page.locator('input[name=password]').fill(password);
    await submit(page, 'form[data-form=signin]', 'Sign in');

    // Dan's page is for Dan to decide; Olivia decides hers
    const dan = await site.signIn(await browser.person(), PEOPLE.dan, `/approvals/${approved.id}`);
    await submit(dan, 'form[data-action=approve]', 'Approve');
    await page.goto(`${site.origin}/approvals/${rejected.id}`);
    await submit(page, 'form[data-action=reject]', 'Reject');

    await page.goto(`${site.origin}/approvals`);
    await shoot('approvals', async (p) => {
      expect(await p.locator('a[data-approval-id]').count()).toBe(2);
    });
    await page.goto(`${site.origin}/approvals/${paging.id}`);
    await shoot('approval', async (p) => {
      expect(await p.locator('form[data-action=approve]').count()).toBe(1);
    });
    await page.goto(`${site.origin}/approvals/${deleting.id}`);
    await shoot('approval-delete', async (p) => {
      expect(await p.locator('form[data-action=approve] button.danger').textContent()).toBe(
        'Approve: Delete booking',
      );
    });
    await submit(page, 'form[data-action=approve]', 'Approve: Delete booking');
    await shoot('approval-executed', async (p) => {
      expect(await p.locator('[data-status]').getAttribute('data-status')).toBe('executed');
      expect(await p.locator('[role=status]').textContent()).toBe('Approved: Booking deleted.');
    });
    await page.goto(`${site.origin}/approvals/${rejected.id}`);
    await shoot('approval-rejected', async (p) => {
      expect(await p.locator('[data-status]').getAttribute('data-status')).toBe('rejected');
    });
    for (const [name, path, status] of [
      ['switches', '/switches', 200],
      ['tokens', '/tokens', 200],
      ['audit', '/audit', 200],
      ['not-found', '/approvals/pa_unknown', 404],
    ] as const) {
      const response = await page.goto(`${site.origin}${path}`);
      expect(response?.status(), path).toBe(status);
      await shoot(name);
    }
    // a desktop client asks Olivia to connect it
    const query = authorizeQuery(site, clientId, pkce().challenge);
    await page.goto(`${site.origin}${query}`);
    await shoot('consent', async (p) => {
      expect(new URL(p.url()).pathname).toMatch(/^\/oauth\/consent\//);
      expect(await p.locator('button[name=decision][value=grant]').count()).toBe(1);
    });
    await dan.close();
    expect(
      stale,
      'pages changed without a new picture: run npm run screenshots --workspace @gatehousejs/example-booking',
    ).toEqual([]);
  });
});
