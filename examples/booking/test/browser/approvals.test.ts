/**
 * Approval by a person (I9) in a real browser: the model's outward call
 * waits on the approval page; a person of the workspace signs in and
 * approves or rejects it there. Each test asserts what was sent (the
 * pager's outbox, booking rows), the pending action's stored status and
 * the audit rows, not only what the page says.
 */
import { expect, it } from 'vitest';
import { browserAvailable, describeWithBrowser } from '../../../../test/chromium.js';
import { crossSite } from '../../../../test/crossSite.js';
import {
  auditRows,
  browserSuite,
  confirmOf,
  csrfOf,
  openSite,
  PAGE_KIM,
  PEOPLE,
  pagesSent,
  pendingRow,
  postForm,
  request,
  submit,
} from './site.js';

const availability = await browserAvailable();

describeWithBrowser(availability, 'approval by a person in the browser', () => {
  const suite = browserSuite();

  it('sends an approved page exactly once, and the model’s confirm_action gets that result replayed', async () => {
    await using site = await openSite(suite.template);
    const model = await site.model();
    const asked = await request(model, 'page_technician', PAGE_KIM);
    expect(await pagesSent(site.t)).toBe(0);
    const waiting = await confirmOf(model, asked.preview);
    expect(waiting.error?.code).toBe('approval_pending');

    const olivia = await site.signIn(await suite.browser.person(), PEOPLE.olivia, `/approvals/${asked.id}`);
    expect(new URL(olivia.url()).pathname).toBe(`/approvals/${asked.id}`);
    await expect.poll(() => olivia.locator('[data-status]').getAttribute('data-status')).toBe('pending');
    await submit(olivia, 'form[data-action=approve]', 'Approve');

    expect(await olivia.locator('[data-status]').getAttribute('data-status')).toBe('executed');
    expect(await olivia.locator('[role=status]').textContent()).toContain('Approved');
    expect(await pagesSent(site.t)).toBe(1);
    expect(await pendingRow(site.t, asked.id)).toMatchObject({
      status: 'executed',
      decided_by: PEOPLE.olivia,
    });

    const replayed = await confirmOf(model, asked.preview);
    expect(replayed.status, JSON.stringify(replayed)).toBe('ok');
    expect(replayed.replayed).toBe(true);
    expect(await confirmOf(model, asked.preview)).toMatchObject({ status: 'ok', replayed: true });
    expect(await pagesSent(site.t)).toBe(1);
    const [sent] = await site.t.rows<{ id: string }>('SELECT id FROM outbound_pages');
    expect(JSON.stringify(replayed.result)).toContain(sent?.id);

    const stored = await pendingRow(site.t, asked.id);
    const audit = await auditRows(site.t, 'page_technician');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ channel: 'mcp', connection_id: stored?.connection_id, outcome: 'ok' });
    expect(audit[0]?.note).toContain(`by ${PEOPLE.olivia}`);
  });

  it('deletes an approved booking once, from the approvals list, and the model gets the deletion replayed', async () => {
    await using site = await openSite(suite.template);
    const model = await site.model();
    const asked = await request(model, 'delete_booking', { booking_id: 'bk_alan_check' });
    expect(await site.t.count('bookings', "id = 'bk_alan_check'")).toBe(1);

    const olivia = await site.signIn(await suite.browser.person(), PEOPLE.olivia);
    await submit(olivia, `a[data-approval-id="${asked.id}"]`, asked.id, 'link');
    expect(await olivia.locator('[data-content]').textContent()).toContain('bk_alan_check');
    await submit(olivia, 'form[data-action=approve]', 'Approve');

    expect(await olivia.locator('[data-status]').getAttribute('data-status')).toBe('executed');
    expect(await site.t.count('bookings', "id = 'bk_alan_check'")).toBe(0);
    expect(await site.t.count('bookings')).toBe(3);
    expect(await confirmOf(model, asked.preview)).toMatchObject({ status: 'ok', replayed: true });
    await olivia.goto(`${site.origin}/approvals`);
    expect(await olivia.locator(`a[data-approval-id="${asked.id}"]`).count()).toBe(0);
    const audit = await auditRows(site.t, 'delete_booking');
    expect(audit.map((row) => [row.outcome, row.note?.includes(`by ${PEOPLE.olivia}`)])).toEqual([
      ['ok', true],
    ]);
  });

  it('sends nothing for a rejected action, and the model’s confirm_action answers approval_rejected', async () => {
    await using site = await openSite(suite.template);
    const model = await site.model();
    const asked = await request(model, 'delete_booking', { booking_id: 'bk_alan_check' });

    const olivia = await site.signIn(await suite.browser.person(), PEOPLE.olivia);
    await submit(olivia, `a[data-approval-id="${asked.id}"]`, asked.id, 'link');
    await olivia.locator('form[data-action=reject] input[name=reason]').fill('Alan called, keep it.');
    await submit(olivia, 'form[data-action=reject]', 'Reject');

    expect(await olivia.locator('[data-status]').getAttribute('data-status')).toBe('rejected');
    expect(await olivia.locator('[role=status]').textContent()).toContain('Rejected');
    expect(await olivia.locator('form[data-action=approve]').count()).toBe(0);
    expect(await pendingRow(site.t, asked.id)).toMatchObject({
      status: 'rejected',
      decided_by: PEOPLE.olivia,
    });
    expect((await confirmOf(model, asked.preview)).error?.code).toBe('approval_rejected');
    expect((await confirmOf(model, asked.preview)).error?.code).toBe('approval_rejected');
    expect(await site.t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
    expect((await auditRows(site.t, 'delete_booking')).filter((row) => row.outcome === 'ok')).toEqual([]);
    const rejected = await auditRows(site.t, 'reject_action');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({
      connection_id: (await pendingRow(site.t, asked.id))?.connection_id,
      outcome: 'ok',
    });
    expect(rejected[0]?.note).toContain(`by ${PEOPLE.olivia}; reason: Alan called, keep it.`);
  });

  it('lets nobody else decide: another workspace’s owner, a viewer, a dispatcher who did not ask, a signed-out visitor', async () => {
    await using site = await openSite(suite.template);
    const model = await site.model();
    const asked = await request(model, 'page_technician', PAGE_KIM);
    const olivia = await site.signIn(await suite.browser.person(), PEOPLE.olivia, `/approvals/${asked.id}`);
    const shownHash = await olivia
      .locator('form[data-action=approve] input[name=content_hash]')
      .getAttribute('value');
    expect(shownHash).toBeTruthy();

    for (const personId of [PEOPLE.gina, PEOPLE.vera, PEOPLE.dan]) {
      const page = await site.signIn(await suite.browser.person(), personId);
      expect(await page.locator(`a[data-approval-id="${asked.id}"]`).count(), personId).toBe(0);
      const opened = await page.goto(asked.approvalUrl);
      expect(opened?.status(), personId).toBe(404);
      expect(await page.locator('form[data-action=approve]').count(), personId).toBe(0);
      const csrf = (await csrfOf(page)) ?? '';
      for (const decision of ['approve', 'reject']) {
        const status = await postForm(page, `/approvals/${asked.id}/${decision}`, {
          csrf,
          content_hash: shownHash ?? '',
        });
        expect(status, `${personId} ${decision}`).toBe(404);
      }
    }

    const visitor = await (await suite.browser.person()).newPage();
    await visitor.goto(asked.approvalUrl);
    expect(new URL(visitor.url()).pathname).toBe('/signin');
    await postForm(visitor, `/approvals/${asked.id}/approve`, { content_hash: shownHash ?? '' });
    expect(new URL(visitor.url()).pathname).toBe('/signin');

    expect(await pagesSent(site.t)).toBe(0);
    expect(await pendingRow(site.t, asked.id)).toMatchObject({ status: 'pending', decided_by: null });
    expect((await confirmOf(model, asked.preview)).error?.code).toBe('approval_pending');
    await olivia.reload();
    await submit(olivia, 'form[data-action=approve]', 'Approve');
    expect(await pagesSent(site.t)).toBe(1);
  });

  it('refuses the person who asked once they lost the right, sending nothing', async () => {
    await using site = await openSite(suite.template);
    const model = await site.model(PEOPLE.dan);
    const asked = await request(model, 'page_technician', PAGE_KIM);
    const dan = await site.signIn(await suite.browser.person(), PEOPLE.dan, `/approvals/${asked.id}`);
    const csrf = (await csrfOf(dan)) ?? '';
    const shownHash =
      (await dan.locator('form[data-action=approve] input[name=content_hash]').getAttribute('value')) ?? '';
    expect(shownHash).not.toBe('');
    await site.t.exec("UPDATE people SET role = 'viewer' WHERE id = ?", PEOPLE.dan);

    const status = await postForm(dan, `/approvals/${asked.id}/approve`, { csrf, content_hash: shownHash });
    expect(status).toBe(200);
    expect(await dan.locator('[role=status]').textContent()).toContain('technicians.page');
    expect(await dan.locator('[data-status]').getAttribute('data-status')).toBe('closed');
    expect(await dan.locator('form[data-action=approve]').count()).toBe(0);
    expect(await pagesSent(site.t)).toBe(0);
    expect(await pendingRow(site.t, asked.id)).toMatchObject({ status: 'failed', decided_by: null });
    expect((await confirmOf(model, asked.preview)).error?.code).toBe('confirm_used');
    expect(await pagesSent(site.t)).toBe(0);
  });

  it('refuses a replayed approve post after it ran, sending nothing twice', async () => {
    await using site = await openSite(suite.template);
    const model = await site.model();
    const asked = await request(model, 'page_technician', PAGE_KIM);
    const olivia = await site.signIn(await suite.browser.person(), PEOPLE.olivia, `/approvals/${asked.id}`);
    const [captured] = await Promise.all([
      olivia.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/approve')),
      submit(olivia, 'form[data-action=approve]', 'Approve'),
    ]);
    expect(await pagesSent(site.t)).toBe(1);
    const fields = Object.fromEntries(new URLSearchParams(captured.postData() ?? ''));
    expect(Object.keys(fields).sort()).toEqual(['content_hash', 'csrf']);

    expect(await postForm(olivia, `/approvals/${asked.id}/approve`, fields)).toBe(200);
    expect(await olivia.locator('[role=status]').textContent()).toContain('already decided');
    expect(await olivia.locator('[data-status]').getAttribute('data-status')).toBe('executed');
    const again = await olivia.context().request.post(captured.url(), {
      headers: { ...(await captured.allHeaders()) },
      data: captured.postData() ?? '',
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);

    expect(await pagesSent(site.t)).toBe(1);
    expect(await auditRows(site.t, 'page_technician')).toHaveLength(1);
    expect(await confirmOf(model, asked.preview)).toMatchObject({ status: 'ok', replayed: true });
  });

  it('refuses an approve form posted from another origin or site, even with the right fields, sending nothing', async () => {
    await using site = await openSite(suite.template);
    const model = await site.model();
    const asked = await request(model, 'page_technician', PAGE_KIM);
    const olivia = await site.signIn(await suite.browser.person(), PEOPLE.olivia, `/approvals/${asked.id}`);
    const fields = {
      csrf: (await csrfOf(olivia)) ?? '',
      content_hash:
        (await olivia.locator('form[data-action=approve] input[name=content_hash]').getAttribute('value')) ??
        '',
    };
    await using evil = await crossSite(`${site.origin}/approvals/${asked.id}/approve`, fields);

    for (const host of ['127.0.0.1', 'localhost'] as const) {
      const page = await olivia.context().newPage();
      const answered = page.waitForResponse((r) => r.url().endsWith('/approve'));
      await page.goto(evil.pageUrl(host));
      const answer = await answered;
      expect(answer.request().method(), host).toBe('POST');
      expect(answer.status(), host).toBe(403);
      await page.close();
    }

    expect(await pagesSent(site.t)).toBe(0);
    expect(await pendingRow(site.t, asked.id)).toMatchObject({ status: 'pending', decided_by: null });
    await olivia.reload();
    await submit(olivia, 'form[data-action=approve]', 'Approve');
    expect(await pagesSent(site.t)).toBe(1);
  });

  it('voids an approval of content that changed after it was shown: the page shows the new content, nothing old goes out', async () => {
    await using site = await openSite(suite.template);
    const model = await site.model();
    const asked = await request(model, 'page_technician', PAGE_KIM);
    const olivia = await site.signIn(await suite.browser.person(), PEOPLE.olivia, `/approvals/${asked.id}`);
    const content = olivia.locator('[data-content]');
    expect(await content.textContent()).toContain('Ada Lovelace');
    const oldFields = {
      csrf: (await csrfOf(olivia)) ?? '',
      content_hash:
        (await olivia.locator('form[data-action=approve] input[name=content_hash]').getAttribute('value')) ??
        '',
    };

    await site.t.exec("UPDATE customers SET name = 'Ada King' WHERE id = 'cu_ada'");
    await submit(olivia, 'form[data-action=approve]', 'Approve');
    expect(await olivia.locator('[role=status]').textContent()).toContain('changed');
    expect(await olivia.locator('[data-status]').getAttribute('data-status')).toBe('pending');
    expect(await pagesSent(site.t)).toBe(0);
    expect(await content.textContent()).toContain('Ada King');
    expect(await content.textContent()).not.toContain('Ada Lovelace');

    expect(await postForm(olivia, `/approvals/${asked.id}/approve`, oldFields)).toBe(200);
    expect(await olivia.locator('[role=status]').textContent()).toContain('changed');
    expect(await pagesSent(site.t)).toBe(0);
    expect((await confirmOf(model, asked.preview)).error?.code).toBe('approval_pending');

    await submit(olivia, 'form[data-action=approve]', 'Approve');
    const sent = await site.t.rows<{ message: string }>('SELECT message FROM outbound_pages');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.message).toContain('Ada King');
    expect(sent[0]?.message).not.toContain('Lovelace');
    const replayed = await confirmOf(model, asked.preview);
    expect(replayed).toMatchObject({ status: 'ok', replayed: true });
  });
});
