/**
 * The approval page (I9): a person action prepared over MCP waits for a
 * signed-in person, who sees exactly what would go out and approves
 * (executes at once) or rejects; a change in between shows the new content.
 */
import { describe, expect, it } from 'vitest';
import { rawClient, structured } from './fixtures/raw.js';
import { type TestApp, testApp } from './fixtures/testApp.js';
import { type PagesBrowser, signedInBrowser } from './pagesClient.js';

const CANARY = '<script>window.__pwned=1</script>"><img src=x onerror=alert(1)>';

/** Prepares delete_booking over MCP as Olivia's token; returns the pending action id from its approval URL. */
async function pendingDelete(t: TestApp, bookingId = 'bk_alan_check') {
  const { mcpUrl } = await t.serve();
  const client = rawClient(mcpUrl, await t.mint());
  const preview = structured(await client.callTool('delete_booking', { booking_id: bookingId }));
  const url = String(preview.approval_url ?? '');
  expect(url).toMatch(/\/approvals\/[^/]+$/);
  const id = decodeURIComponent(url.split('/').pop() ?? '');
  return { id, path: new URL(url).pathname, client, preview };
}

const statusIn = (html: string) => /data-status="([a-z]+)"/.exec(html)?.[1];
const hashIn = (html: string) => /name="content_hash" value="([^"]*)"/.exec(html)?.[1];
const flashIn = (html: string) => /role="status"[^>]*>([^<]*)</.exec(html)?.[1];

async function decide(
  b: PagesBrowser,
  path: string,
  decision: 'approve' | 'reject',
  fields: Record<string, string> = {},
) {
  const page = await b.get(path);
  const posted = await b.post(`${path}/${decision}`, { content_hash: hashIn(page.text) ?? '', ...fields });
  return { page, posted };
}

describe('the approval page', () => {
  it('lists the approver’s pending actions, shows one with its content, and approving executes it once', async () => {
    await using t = await testApp();
    const { id, path } = await pendingDelete(t);
    const b = await signedInBrowser(t, 'p_olivia');
    const list = await b.get('/approvals');
    expect(list.text).toContain(`data-approval-id="${id}"`);
    expect(list.text).toContain(`href="${path}"`);
    const { page, posted } = await decide(b, path, 'approve');
    expect(statusIn(page.text)).toBe('pending');
    expect(page.text).toContain('data-action="approve"');
    expect(page.text).toContain('data-action="reject"');
    expect(page.text).toContain('bk_alan_check');
    expect(page.text).toMatch(/data-credential="cred_/);
    expect(page.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(path);
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(0);
    const after = await b.get(path);
    expect(flashIn(after.text)).toBe('Approved: Booking deleted.');
    expect(statusIn(after.text)).toBe('executed');
    expect(after.text).not.toContain('data-action="approve"');
    expect((await b.get('/approvals')).text).toContain('Nothing awaits your approval.');
    // A second approval of the same action sends nothing again.
    const again = await b.post(`${path}/approve`, { content_hash: hashIn(page.text) ?? '' });
    expect(again.status).toBe(303);
    expect(flashIn((await b.get(path)).text)).not.toBe('Approved: sent.');
  });

  it('lets a member of another workspace decide what they asked for there, with their role there', async () => {
    await using t = await testApp();
    const { cliActor } = await import('../src/cli/commands.js');
    const membership = await t.app.people.get('ws_globex', 'p_olivia');
    await t.app.people.setRole(membership!, 'owner', cliActor());
    const { mcpUrl } = await t.serve();
    const client = rawClient(mcpUrl, await t.mint({ workspaceId: 'ws_globex', personId: 'p_olivia' }));
    const preview = structured(await client.callTool('delete_booking', { booking_id: 'bk_linus_leak' }));
    const path = new URL(String(preview.approval_url)).pathname;
    const id = decodeURIComponent(path.split('/').pop() ?? '');
    const olivia = await signedInBrowser(t, 'p_olivia');
    expect((await olivia.get('/approvals')).text).toContain(`data-approval-id="${id}"`);
    const dan = await signedInBrowser(t, 'p_dan');
    expect((await dan.get(path)).status).toBe(404);
    await dan.get('/approvals');
    expect((await dan.post(`${path}/approve`, { content_hash: '' })).status).toBe(404);

    // the role there drops below the right: the action can no longer be approved
    await t.app.people.setRole((await t.app.people.get('ws_globex', 'p_olivia'))!, 'viewer', cliActor());
    const denied = await decide(olivia, path, 'approve');
    expect(denied.posted.status).toBe(303);
    expect(hashIn(denied.page.text)).toBe(''); // the page has nothing it could approve now
    expect(flashIn((await olivia.get(path)).text)).not.toBe('Approved: sent.');
    expect(await t.count('bookings', "id = 'bk_linus_leak'")).toBe(1);

    await t.app.people.setRole((await t.app.people.get('ws_globex', 'p_olivia'))!, 'owner', cliActor());
    const second = structured(await client.callTool('delete_booking', { booking_id: 'bk_linus_leak' }));
    const secondPath = new URL(String(second.approval_url)).pathname;
    const { posted } = await decide(olivia, secondPath, 'approve');
    expect(posted.status).toBe(303);
    expect(await t.count('bookings', "id = 'bk_linus_leak'")).toBe(0);
    expect(
      await t.count(
        'gatehouse_audit',
        "action = 'delete_booking' AND outcome = 'ok' AND tenant_id = 'ws_globex'",
      ),
    ).toBe(1);
  });

  it('rejecting closes the action: nothing is deleted, ever', async () => {
    await using t = await testApp();
    const { path } = await pendingDelete(t);
    const b = await signedInBrowser(t, 'p_olivia');
    const { posted } = await decide(b, path, 'reject', { reason: 'Not today.' });
    expect(posted.status).toBe(303);
    const after = await b.get(path);
    expect(flashIn(after.text)).toBe('Rejected.');
    expect(statusIn(after.text)).toBe('rejected');
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
    const late = await b.post(`${path}/approve`, { content_hash: 'x' });
    expect(late.status).toBe(303);
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
  });

  it('when what would go out changed since it was shown, sends nothing and shows the new content', async () => {
    await using t = await testApp();
    const { path } = await pendingDelete(t);
    const b = await signedInBrowser(t, 'p_olivia');
    const shown = await b.get(path);
    const oldHash = hashIn(shown.text) ?? '';
    await t.exec(
      "UPDATE bookings SET price_minor = 24011, revision = revision + 1 WHERE id = 'bk_alan_check'",
    );
    const posted = await b.post(`${path}/approve`, { content_hash: oldHash });
    expect(posted.status).toBe(303);
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
    const renewed = await b.get(path);
    expect(flashIn(renewed.text)).toBe('What would go out changed; review the new content.');
    expect(statusIn(renewed.text)).toBe('pending');
    expect(hashIn(renewed.text)).not.toBe(oldHash);
    expect(renewed.text).toContain('240.11');
    await b.post(`${path}/approve`, { content_hash: hashIn(renewed.text) ?? '' });
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(0);
  });

  it('answers 404 to someone it is not for, and their POST changes nothing', async () => {
    await using t = await testApp();
    const { id, path } = await pendingDelete(t);
    for (const person of ['p_gina', 'p_dan']) {
      const b = await signedInBrowser(t, person);
      expect((await b.get('/approvals')).text).not.toContain(id);
      expect((await b.get(path)).status).toBe(404);
      expect((await b.post(`${path}/approve`, { content_hash: 'x' })).status).toBe(404);
      expect((await b.post(`${path}/reject`)).status).toBe(404);
    }
    const olivia = await signedInBrowser(t, 'p_olivia');
    expect((await olivia.get('/approvals/pa_does_not_exist')).status).toBe(404);
    expect(statusIn((await olivia.get(path)).text)).toBe('pending');
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
  });

  it('refuses an approval without CSRF token or from another origin: 403, nothing deleted', async () => {
    await using t = await testApp();
    const { path } = await pendingDelete(t);
    const b = await signedInBrowser(t, 'p_olivia');
    const hash = hashIn((await b.get(path)).text) ?? '';
    expect((await b.post(`${path}/approve`, { content_hash: hash }, { csrf: null })).status).toBe(403);
    expect(
      (await b.post(`${path}/approve`, { content_hash: hash }, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect(await t.count('bookings', "id = 'bk_alan_check'")).toBe(1);
    expect(statusIn((await b.get(path)).text)).toBe('pending');
  });

  it('renders the content as text: the canary in a customer’s name stays inert', async () => {
    await using t = await testApp();
    const [row] = await t.rows<{ customer_id: string }>(
      "SELECT customer_id FROM bookings WHERE id = 'bk_alan_check'",
    );
    await t.exec('UPDATE customers SET name = ?, notes = ? WHERE id = ?', CANARY, CANARY, row?.customer_id);
    const { path } = await pendingDelete(t);
    const b = await signedInBrowser(t, 'p_olivia');
    for (const page of [await b.get('/approvals'), await b.get(path)]) {
      expect(page.text).not.toContain('<script>window.__pwned');
      expect(page.text).not.toContain('<img src=x');
    }
    const detail = await b.get(path);
    expect(detail.text).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
  });

  it('shows every string cleaned: a bidi override in a customer’s name reaches no page (I16)', async () => {
    await using t = await testApp();
    const [row] = await t.rows<{ customer_id: string }>(
      "SELECT customer_id FROM bookings WHERE id = 'bk_alan_check'",
    );
    const lying = 'Alan \u202Egnirut\u2066 Turing\u200B';
    await t.exec('UPDATE customers SET name = ?, notes = ? WHERE id = ?', lying, lying, row?.customer_id);
    const { path } = await pendingDelete(t);
    const b = await signedInBrowser(t, 'p_olivia');
    const detail = await b.get(path);
    expect(detail.text).toContain('Alan gnirut Turing');
    for (const page of [await b.get('/approvals'), detail, await b.get('/audit'), await b.get('/tokens')]) {
      expect(page.text).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B]/u);
    }
  });
});
