/**
 * The operator pages in a real browser: arriving from an approval link,
 * the sign-in return path, one-time sign-in links, sign-out, and the injection canary of I16 in
 * every field the pages show, which must render as text and run nothing.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { canaryReport, canaryText, visibleText } from '../../../../test/canary.js';
import { browserAvailable, describeWithBrowser } from '../../../../test/chromium.js';
import { createSignInLink } from '../../src/pages/index.js';
import { browserSuite, fillSignIn, openSite, PAGE_KIM, PEOPLE, pagesSent, request, submit } from './site.js';

const availability = await browserAvailable();

/** Off-site or malformed `return` values; each must land on /approvals of the product. */
const OFF_SITE_RETURNS = [
  'https://evil.example/approvals',
  '//evil.example/approvals',
  '/\\evil.example/approvals',
  '\\\\evil.example/approvals',
  'javascript:alert(1)',
  'http:evil.example',
  '/\t/evil.example',
  'approvals',
];

/** Expects the page shown to have run no canary and to show each tagged canary as text. */
async function expectInert(page: Page, tags: readonly string[]): Promise<void> {
  const where = new URL(page.url()).pathname;
  expect(await canaryReport(page), where).toEqual({ pwned: undefined, dialogs: [], injectedElements: 0 });
  const text = await visibleText(page);
  for (const tag of tags) {
    const at = text.indexOf(tag);
    expect(at, `${where} shows ${tag}`).toBeGreaterThanOrEqual(0);
    const shown = text.slice(at, at + 200);
    expect(shown, where).toContain('<script>window.__pwned=1;');
    expect(shown, where).toContain('<img src=x onerror=');
  }
}

describeWithBrowser(availability, 'the operator pages in the browser', () => {
  const suite = browserSuite();

  it('brings a signed-out person who follows an approval link to that action after one sign-in', async () => {
    await using site = await openSite(suite.template);
    const asked = await request(await site.model(), 'page_technician', PAGE_KIM);
    const page = await (await suite.browser.person()).newPage();
    await page.goto(asked.approvalUrl);
    const signInUrl = new URL(page.url());
    expect(signInUrl.pathname).toBe('/signin');
    expect(signInUrl.searchParams.get('return')).toBe(`/approvals/${asked.id}`);

    const { email, password } = await site.credentialsOf(PEOPLE.olivia);
    await fillSignIn(page, email, password);
    expect(page.url()).toBe(asked.approvalUrl);
    expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('pending');
    await submit(page, 'form[data-action=approve]', 'Approve');
    expect(await pagesSent(site.t)).toBe(1);
  });

  it('lands on /approvals of the product when the return path points off-site', async () => {
    await using site = await openSite(suite.template);
    const { email, password } = await site.credentialsOf(PEOPLE.olivia);
    for (const target of OFF_SITE_RETURNS) {
      const context = await suite.browser.person();
      const page = await context.newPage();
      await page.goto(`${site.origin}/signin?return=${encodeURIComponent(target)}`);
      await fillSignIn(page, email, password);
      expect(page.url(), target).toBe(`${site.origin}/approvals`);
      await context.close();
    }
  });

  it('signs in once with a one-time link, which then answers that it is used', async () => {
    await using site = await openSite(suite.template);
    const link = await createSignInLink(site.t.app, PEOPLE.olivia);
    expect(new URL(link).origin).toBe(site.origin);
    const first = await (await suite.browser.person()).newPage();
    await first.goto(link);
    expect(first.url()).toBe(`${site.origin}/approvals`);
    expect(await first.locator('[data-person]').textContent()).toBe('Olivia Owner');
    expect(await site.t.count('sessions', 'person_id = ?', PEOPLE.olivia)).toBe(1);

    const second = await (await suite.browser.person()).newPage();
    const again = await second.goto(link);
    expect(again?.status()).toBe(404);
    expect(await second.locator('form[data-form=signout]').count()).toBe(0);
    await second.goto(`${site.origin}/approvals`);
    expect(new URL(second.url()).pathname).toBe('/signin');
    expect(await site.t.count('sessions', 'person_id = ?', PEOPLE.olivia)).toBe(1);
  });

  it('signs out from the header: the session ends and every page asks to sign in again', async () => {
    await using site = await openSite(suite.template);
    const page = await site.signIn(await suite.browser.person(), PEOPLE.olivia, '/tokens');
    expect(new URL(page.url()).pathname).toBe('/tokens');
    expect(await site.t.count('sessions', 'person_id = ?', PEOPLE.olivia)).toBe(1);
    await submit(page, 'form[data-form=signout]', 'Sign out');
    expect(new URL(page.url()).pathname).toBe('/signin');
    expect(await site.t.count('sessions', 'person_id = ?', PEOPLE.olivia)).toBe(0);
    for (const path of ['/approvals', '/switches', '/tokens', '/audit']) {
      await page.goto(`${site.origin}${path}`);
      expect(new URL(page.url()).pathname, path).toBe('/signin');
    }
  });

  it('shows the injection canary as text in every field, and runs none of it (I16)', async () => {
    await using site = await openSite(suite.template);
    const { t } = site;
    await t.exec("UPDATE customers SET name = ? WHERE id IN ('cu_ada', 'cu_alan')", canaryText('customer'));
    await t.exec("UPDATE technicians SET name = ? WHERE id = 'te_kim'", canaryText('technician'));
    await t.exec("UPDATE people SET name = ? WHERE id = 'p_olivia'", canaryText('person'));
    await t.exec("UPDATE workspaces SET name = ? WHERE id = 'ws_acme'", canaryText('workspace'));
    const model = await site.model();
    const paging = await request(model, 'page_technician', { ...PAGE_KIM, message: canaryText('note') });
    const deleting = await request(model, 'delete_booking', { booking_id: 'bk_alan_check' });

    const page = await site.signIn(await suite.browser.person(), PEOPLE.olivia);
    await expectInert(page, ['person', 'workspace', 'technician', 'customer']);

    await page.goto(paging.approvalUrl);
    await expectInert(page, ['person', 'technician', 'note', 'customer']);
    await submit(page, 'form[data-action=approve]', 'Approve');
    await expectInert(page, ['technician']);
    expect(await pagesSent(t)).toBe(1);

    await page.goto(deleting.approvalUrl);
    await expectInert(page, ['customer']);
    await page.locator('form[data-action=reject] input[name=reason]').fill(canaryText('reason'));
    await submit(page, 'form[data-action=reject]', 'Reject');
    await expectInert(page, ['customer']);

    await page.goto(`${site.origin}/tokens`);
    await page.locator('form[data-action=mint] input[name=label]').fill(canaryText('label'));
    await submit(page, 'form[data-action=mint]', 'Create token');
    expect(await page.locator('[data-minted-token]').count()).toBe(1);
    await expectInert(page, ['label']);

    await page.goto(`${site.origin}/switches`);
    await submit(page, 'form[data-switch=workspace]', 'Turn agent access off');
    await expectInert(page, ['person', 'workspace']);

    await page.goto(`${site.origin}/audit`);
    expect(await page.locator('tr[data-audit-row]').count()).toBeGreaterThan(0);
    await expectInert(page, ['label', 'reason']);
  });
});
