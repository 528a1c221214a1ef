/**
 * The console in Chromium, mounted by the small help-desk host of
 * `../host.ts` with its own sign-in, served over HTTP beside its MCP
 * endpoint: a person approves and rejects, another site can neither frame
 * the pages nor post their forms, a session cookie planted from another port
 * is refused, the injection canaries stay text, and
 * axe-core finds no serious or critical accessibility violation on any page.
 */
import { listen } from '@gatehousejs/core/node';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CANARIES, canaryReport, canaryText, visibleText } from '../../../../test/canary.js';
import {
  browserAvailable,
  describeWithBrowser,
  launchBrowser,
  seriousViolations,
  type TestBrowser,
} from '../../../../test/chromium.js';
import { cookieTosser, crossSite } from '../../../../test/crossSite.js';
import { desk, PEOPLE } from '../host.js';

const availability = await browserAvailable();

/** The desk served on a loopback port: its MCP endpoint, its console, and its own `/login?as=<person id>`. */
async function servedDesk() {
  let origin = '';
  const d = desk({ origin: () => origin, branding: { productName: 'Desk' } });
  const people = Object.values(PEOPLE);
  const listening = await listen(d.server, {
    port: 0,
    fetch: async (request) => {
      const url = new URL(request.url);
      if (url.pathname !== '/login') return d.console.fetch(request);
      // the host's own sign-in: who signs in is the query's (a test host), where they go next a console path
      const person = people.find((p) => p.id === url.searchParams.get('as'));
      if (!person) return new Response('Choose who signs in.', { status: 400 });
      const next = url.searchParams.get('next') ?? '/approvals';
      const headers = new Headers({
        location: next.startsWith('/') && !next.startsWith('//') ? next : '/approvals',
      });
      headers.append('set-cookie', `desk_session=${d.signInAs(person)}; HttpOnly; Path=/; SameSite=Lax`);
      return new Response(null, { status: 303, headers });
    },
  });
  origin = listening.url.origin;
  return { d, origin, close: () => listening.close() };
}

/** Opens `path`, which sends a visitor to the host's sign-in, signs in as `personId` there, and lands back on `path`. */
async function signedIn(browser: TestBrowser, origin: string, personId: string, path: string): Promise<Page> {
  const page = await (await browser.person()).newPage();
  await page.goto(`${origin}${path}`);
  expect(new URL(page.url()).pathname).toBe('/login');
  await page.goto(`${page.url()}&as=${personId}`);
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(path);
  return page;
}

async function click(page: Page, selector: string, name: string): Promise<number> {
  const [response] = await Promise.all([
    page.waitForNavigation(),
    page.locator(selector).getByRole('button', { name }).click(),
  ]);
  return response?.status() ?? 0;
}

describeWithBrowser(availability, 'the console in a browser', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lets a person sign in through the host, approve what waits for them once, and shows what happened', async () => {
    const desk = await servedDesk();
    try {
      const id = await desk.d.ask(PEOPLE.ada!);
      const page = await signedIn(browser, desk.origin, 'p_ada', `/approvals/${id}`);
      expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('pending');
      expect(await page.locator('[data-content]').textContent()).toContain('grace@customer.example');
      expect(await seriousViolations(page)).toEqual([]);
      expect(await click(page, 'form[data-action=approve]', 'Approve: Email a customer')).toBe(200);
      expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('executed');
      expect(await page.locator('[role=status]').textContent()).toBe('Approved: sent.');
      expect(desk.d.sent).toEqual([{ to: 'grace@customer.example', text: 'Your ticket is solved.' }]);
      await page.goBack();
      await page.reload();
      expect(desk.d.sent).toHaveLength(1);
    } finally {
      await desk.close();
    }
  });

  it('rejects: nothing is sent, and the page says so', async () => {
    const desk = await servedDesk();
    try {
      const id = await desk.d.ask(PEOPLE.ada!);
      const page = await signedIn(browser, desk.origin, 'p_ada', `/approvals/${id}`);
      await page.locator('input[name=reason]').fill('Wrong customer');
      expect(await click(page, 'form[data-action=reject]', 'Reject')).toBe(200);
      expect(await page.locator('[data-status]').textContent()).toContain('Nothing was sent.');
      expect(desk.d.sent).toEqual([]);
    } finally {
      await desk.close();
    }
  });

  it('cannot be framed by another site', async () => {
    const desk = await servedDesk();
    try {
      const page = await signedIn(browser, desk.origin, 'p_ada', '/approvals');
      expect(await page.locator('h1').textContent()).toBe('Approvals');
      await page.setContent(`<iframe src="${desk.origin}/approvals" width="600" height="400"></iframe>`);
      expect(page.frames()).toHaveLength(2);
      const frame = page.frames()[1];
      await page.waitForTimeout(300);
      const framed = await frame
        ?.evaluate(() => document.querySelector('h1')?.textContent)
        .catch(() => undefined);
      expect(framed).not.toBe('Approvals');
    } finally {
      await desk.close();
    }
  });

  it('refuses an approve form posted from another origin or site, sending nothing', async () => {
    const desk = await servedDesk();
    try {
      const id = await desk.d.ask(PEOPLE.ada!);
      const ada = await signedIn(browser, desk.origin, 'p_ada', `/approvals/${id}`);
      const fields = {
        csrf: (await ada.locator('form[data-action=approve] input[name=csrf]').getAttribute('value')) ?? '',
        content_hash: (await ada.locator('input[name=content_hash]').getAttribute('value')) ?? '',
      };
      await using evil = await crossSite(`${desk.origin}/approvals/${id}/approve`, fields);
      for (const host of ['127.0.0.1', 'localhost'] as const) {
        const page = await ada.context().newPage();
        const answered = page.waitForResponse((r) => r.url().endsWith('/approve'));
        await page.goto(evil.pageUrl(host));
        expect((await answered).status(), host).toBe(403);
        await page.close();
      }
      expect(desk.d.sent).toEqual([]);
      await ada.reload();
      expect(await ada.locator('[data-status]').getAttribute('data-status')).toBe('pending');
    } finally {
      await desk.close();
    }
  });

  it('refuses a second host session cookie planted from another port, never reading it', async () => {
    const desk = await servedDesk();
    try {
      const page = await signedIn(browser, desk.origin, 'p_ada', '/tokens');
      expect(await page.locator('[data-person]').textContent()).toBe('Ada Owner');
      const cy = desk.d.signInAs(PEOPLE.cy!);
      await using neighbour = await cookieTosser([`desk_session=${cy}; Path=/approvals`]);
      await page.goto(neighbour.url('127.0.0.1'));
      const refused = await page.goto(`${desk.origin}/approvals`);
      expect(refused?.status()).toBe(400);
      expect(await page.locator('h1').textContent()).toBe('Conflicting cookies');
      expect(await page.locator('[data-person]').count()).toBe(0);
      // both copies went with the refusal: the next page asks for a sign-in
      await page.goto(`${desk.origin}/approvals`);
      expect(new URL(page.url()).pathname).toBe('/login');
    } finally {
      await desk.close();
    }
  });

  it('comes back after the host sign-in to the page asked for, query and all', async () => {
    const desk = await servedDesk();
    try {
      const page = await (await browser.person()).newPage();
      await page.goto(`${desk.origin}/audit?action=tool_call`);
      const login = new URL(page.url());
      expect(login.pathname).toBe('/login');
      expect(login.searchParams.get('next')).toBe('/audit?action=tool_call');
      await page.goto(`${page.url()}&as=p_ada`);
      expect(new URL(page.url()).origin).toBe(desk.origin);
      expect(await page.locator('h1').textContent()).toBe('Audit log');
    } finally {
      await desk.close();
    }
  });

  it('shows the canaries as text on every field it displays, running nothing', async () => {
    const desk = await servedDesk();
    try {
      const id = await desk.d.ask(PEOPLE.ada!, canaryText('to'), canaryText('text'));
      const page = await signedIn(browser, desk.origin, 'p_ada', `/approvals/${id}`);
      const report = await canaryReport(page);
      expect(report).toEqual({ pwned: undefined, dialogs: [], injectedElements: 0 });
      expect(await visibleText(page)).toContain(CANARIES[0]);
    } finally {
      await desk.close();
    }
  });

  it('has no serious or critical accessibility violation on any page', async () => {
    const desk = await servedDesk();
    try {
      await desk.d.ask(PEOPLE.ada!);
      const page = await signedIn(browser, desk.origin, 'p_ada', '/approvals');
      for (const path of ['/approvals', '/switches', '/tokens', '/audit', '/approvals/pa_unknown']) {
        await page.goto(`${desk.origin}${path}`);
        expect(await seriousViolations(page), path).toEqual([]);
      }
      // the check would catch one: an image without a text alternative, a field without a label
      await page.setContent('<main><img src="x.png"><input type="text"></main>');
      expect((await seriousViolations(page)).map((line) => line.split(':')[0])).toEqual(
        expect.arrayContaining(['image-alt', 'label']),
      );
    } finally {
      await desk.close();
    }
  });
});
