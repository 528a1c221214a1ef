/**
 * The browser fixture itself: people are isolated from each other, and the
 * canary check catches a page that inserts text as markup (so a passing
 * canary test of the real pages means something).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CANARIES, canaryReport, canaryText, visibleText } from '../../../../test/canary.js';
import {
  browserAvailable,
  describeWithBrowser,
  launchBrowser,
  type TestBrowser,
} from '../../../../test/chromium.js';

const availability = await browserAvailable();

/** A page that shows `?text=` as markup (`unsafe`) or as text (`safe`), and a route that sets a cookie. */
function canaryServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/cookie') {
      res.writeHead(200, { 'set-cookie': 'who=first; Path=/; SameSite=Lax', 'content-type': 'text/plain' });
      res.end('set');
      return;
    }
    const text = JSON.stringify(url.searchParams.get('text') ?? '').replace(/</g, '\\u003c');
    const write = url.pathname === '/unsafe' ? 'innerHTML' : 'textContent';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><main><p id="out"></p></main><script>document.getElementById('out').${write} = ${text};</script>`,
    );
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
}

describeWithBrowser(availability, 'the browser fixture', () => {
  let browser: TestBrowser;
  let site: { server: Server; origin: string };
  beforeAll(async () => {
    browser = await launchBrowser();
    site = await canaryServer();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.server.close(resolve));
  });

  it('gives each person their own cookies', async () => {
    const first = await browser.person();
    const second = await browser.person();
    await (await first.newPage()).goto(`${site.origin}/cookie`);
    expect((await first.cookies(site.origin)).map((c) => c.name)).toEqual(['who']);
    expect(await second.cookies(site.origin)).toEqual([]);
  });

  it('reports the canaries as run when a page inserts them as markup', async () => {
    const page = await (await browser.person()).newPage();
    await page.goto(`${site.origin}/unsafe?text=${encodeURIComponent(canaryText('unsafe'))}`);
    const report = await canaryReport(page);
    expect(report.pwned).toBe(1);
    expect(report.dialogs.length).toBeGreaterThan(0);
    expect(report.injectedElements).toBeGreaterThan(0);
  });

  it('reports nothing run, and the canaries visible, when a page inserts them as text', async () => {
    const page = await (await browser.person()).newPage();
    await page.goto(`${site.origin}/safe?text=${encodeURIComponent(canaryText('safe'))}`);
    expect(await canaryReport(page)).toEqual({ pwned: undefined, dialogs: [], injectedElements: 0 });
    const text = await visibleText(page);
    for (const canary of CANARIES) expect(text).toContain(canary);
  });
});
