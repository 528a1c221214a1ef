/**
 * The operator pages that change things: kill switches (I6), MCP tokens
 * (I5), and the audit log they leave (I15). Each asserts the rows written.
 */
import { describe, expect, it } from 'vitest';
import { cliActor } from '../src/cli/commands.js';
import { type TestApp, testApp } from './fixtures/testApp.js';
import { signedInBrowser } from './pagesClient.js';

interface AuditLine {
  actor_id: string | null;
  channel: string;
  action: string;
  tenant_id: string | null;
  object_ids: string;
}

const auditOf = (t: TestApp, action: string) =>
  t.rows<AuditLine>(
    'SELECT actor_id, channel, action, tenant_id, object_ids FROM gatehouse_audit WHERE action = ? ORDER BY id',
    action,
  );

const mintedToken = (html: string) => /<pre data-minted-token>([^<]+)<\/pre>/.exec(html)?.[1];
const auditRows = (html: string) => html.match(/<tr data-audit-row/g)?.length ?? 0;

describe('the switches page', () => {
  it('lets an owner turn the workspace agent access off and on; audited with her id, shown as last change', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t, 'p_olivia');
    const page = await b.get('/switches');
    expect(page.text).toContain('data-switch="global"');
    expect(page.text).toContain('data-switch="workspace"');
    expect(page.text).toContain('Never changed');
    const off = await b.post('/switches/workspace', { on: '0' });
    expect(off.status).toBe(303);
    expect(off.headers.get('location')).toBe('/switches');
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(false);
    expect(await auditOf(t, 'switch.set')).toEqual([
      expect.objectContaining({ actor_id: 'p_olivia', channel: 'admin', tenant_id: 'ws_acme' }),
    ]);
    const after = await b.get('/switches');
    expect(after.text).toMatch(/role="status"[^>]*>Agent access off for this workspace\./);
    expect(after.text).toContain('<span data-changed-by>Olivia Owner</span>');
    expect(after.text).toContain('<strong data-state="workspace">off</strong>');
    // The flash shows once.
    expect((await b.get('/switches')).text).not.toContain('role="status"');
    await b.post('/switches/workspace', { on: '1' });
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(true);
  });

  it('lets only the operator flip the global kill switch', async () => {
    await using t = await testApp();
    const olivia = await signedInBrowser(t, 'p_olivia');
    await olivia.get('/switches');
    expect((await olivia.post('/switches/global', { on: '1' })).status).toBe(303);
    expect(await t.app.switches.isGlobalOn()).toBe(true);
    expect(await auditOf(t, 'switch.set')).toEqual([
      expect.objectContaining({ actor_id: 'p_olivia', channel: 'admin', tenant_id: null }),
    ]);
    expect((await olivia.get('/switches')).text).toContain('<span data-changed-by>Olivia Owner</span>');
    await olivia.post('/switches/global', { on: '0' });
    // Gina owns another workspace but is not the operator.
    const gina = await signedInBrowser(t, 'p_gina');
    const page = await gina.get('/switches');
    expect(page.text).toMatch(/data-switch="global"[\s\S]*?<button type="submit" disabled>/);
    expect((await olivia.get('/switches')).text).not.toContain('disabled>');
    const refused = await gina.post('/switches/global', { on: '1' });
    expect(refused.status).toBe(403);
    expect(await t.app.switches.isGlobalOn()).toBe(false);
    expect(await auditOf(t, 'switch.set')).toHaveLength(2);
  });

  it('shows non-owners a 403 page and changes nothing for them', async () => {
    await using t = await testApp();
    const dan = await signedInBrowser(t, 'p_dan');
    expect((await dan.get('/switches')).status).toBe(403);
    await dan.get('/approvals');
    expect((await dan.post('/switches/workspace', { on: '0' })).status).toBe(403);
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(true);
    expect(await auditOf(t, 'switch.set')).toEqual([]);
  });
});

describe('the switches page for a member of other workspaces', () => {
  it('switches a workspace she owns by membership, and answers 404 for one where she is not an owner now', async () => {
    await using t = await testApp();
    const olivia = await signedInBrowser(t, 'p_olivia');
    // a viewer of Globex: its switch is neither shown nor changeable
    const page = await olivia.get('/switches');
    expect(page.text).toContain('data-workspace="ws_acme"');
    expect(page.text).not.toContain('data-workspace="ws_globex"');
    const refused = await olivia.post('/switches/workspace', { on: '0', workspace: 'ws_globex' });
    expect(refused.status).toBe(404);
    expect(await t.app.switches.tenantAccess('ws_globex')).toBe(true);
    expect(await auditOf(t, 'switch.set')).toEqual([]);

    const membership = (await t.app.people.get('ws_globex', 'p_olivia'))!;
    await t.app.people.setRole(membership, 'owner', cliActor());
    expect((await olivia.get('/switches')).text).toContain('data-workspace="ws_globex"');
    const off = await olivia.post('/switches/workspace', { on: '0', workspace: 'ws_globex' });
    expect(off.status).toBe(303);
    expect(await t.app.switches.tenantAccess('ws_globex')).toBe(false);
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(true);
    expect(await auditOf(t, 'switch.set')).toEqual([
      expect.objectContaining({ actor_id: 'p_olivia', channel: 'admin', tenant_id: 'ws_globex' }),
    ]);
    expect((await olivia.get('/switches')).text).toMatch(/role="status"[^>]*>Agent access off for Globex/);

    await t.app.people.setRole(membership, 'dispatcher', cliActor());
    const after = await olivia.post('/switches/workspace', { on: '1', workspace: 'ws_globex' });
    expect(after.status).toBe(404);
    expect(await t.app.switches.tenantAccess('ws_globex')).toBe(false);
    expect(await auditOf(t, 'switch.set')).toHaveLength(1);
    // her own workspace stays hers, with or without the field
    expect((await olivia.post('/switches/workspace', { on: '0' })).status).toBe(303);
    expect(await t.app.switches.tenantAccess('ws_acme')).toBe(false);
  });
});

describe('the tokens page', () => {
  it('mints a token with the chosen rights, shows it once in the POST response, and audits it', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t, 'p_dan');
    const page = await b.get('/tokens');
    expect(page.text).toContain('data-action="mint"');
    // Only the person's own live rights are offered.
    expect(page.text).toContain('name="rights" value="technicians.page"');
    expect(page.text).not.toContain('value="bookings.delete"');
    const minted = await b.post('/tokens', {
      label: 'Claude on my laptop',
      rights: ['bookings.read', 'bookings.write'],
      toolset: 'compact',
    });
    expect(minted.status).toBe(200);
    expect(minted.headers.get('cache-control')).toBe('no-store');
    const token = mintedToken(minted.text) ?? '';
    expect(t.app.credentials.isMcpToken(token)).toBe(true);
    const [row] = await t.rows<{ id: string; creator_id: string; rights: string; toolset: string | null }>(
      'SELECT id, creator_id, rights, toolset FROM gatehouse_credentials WHERE client_label = ?',
      'Claude on my laptop',
    );
    expect(row).toMatchObject({ creator_id: 'p_dan', toolset: 'compact' });
    expect(JSON.parse(row?.rights ?? '[]')).toEqual(['bookings.read', 'bookings.write']);
    expect(await auditOf(t, 'token.create')).toEqual([
      expect.objectContaining({ actor_id: 'p_dan', channel: 'admin', tenant_id: 'ws_acme' }),
    ]);
    // The token itself is never shown again, nor in a redirect or cookie.
    expect(minted.headers.get('location')).toBeNull();
    expect(minted.cookies.join(' ')).not.toContain(token);
    expect((await b.get('/tokens')).text).not.toContain(token);
    expect((await b.get('/tokens')).text).toContain(`data-token-id="${row?.id}"`);
  });

  it('refuses rights the person does not hold now; no credential is written', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t, 'p_dan');
    await b.get('/tokens');
    const refused = await b.post('/tokens', { label: 'too much', rights: ['bookings.delete'] });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('You do not hold bookings.delete now');
    expect(mintedToken(refused.text)).toBeUndefined();
    expect(await t.count('gatehouse_credentials')).toBe(0);
    expect(await auditOf(t, 'token.create')).toEqual([]);
  });

  it('revokes a token: the credential row is revoked, the revocation audited, the token refused at /mcp', async () => {
    await using t = await testApp();
    const token = await t.mint();
    const [cred] = await t.rows<{ id: string }>('SELECT id FROM gatehouse_credentials');
    const b = await signedInBrowser(t, 'p_olivia');
    const page = await b.get('/tokens');
    expect(page.text).toContain(`data-token-id="${cred?.id}"`);
    expect(page.text).toContain('data-action="revoke"');
    const revoked = await b.post(`/tokens/${cred?.id}/revoke`);
    expect(revoked.status).toBe(303);
    const [row] = await t.rows<{ revoked_at: number | null }>(
      'SELECT revoked_at FROM gatehouse_credentials WHERE id = ?',
      cred?.id,
    );
    expect(row?.revoked_at).not.toBeNull();
    expect(await auditOf(t, 'token.revoke')).toEqual([
      expect.objectContaining({ actor_id: 'p_olivia', channel: 'admin', tenant_id: 'ws_acme' }),
    ]);
    expect((await b.get('/tokens')).text).toContain(`Revoked ${cred?.id}.`);
    const mcp = await fetch(new URL('/mcp', b.origin), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
  });

  it('shows owners every token of the workspace, others only their own; others cannot revoke a colleague’s', async () => {
    await using t = await testApp();
    await t.mint({ personId: 'p_olivia' });
    await t.mint({ personId: 'p_dan', rights: ['bookings.read'] });
    await t.mint({ workspaceId: 'ws_globex', personId: 'p_gina' });
    const ids = await t.rows<{ id: string; creator_id: string }>(
      'SELECT id, creator_id FROM gatehouse_credentials',
    );
    const idOf = (person: string) => ids.find((r) => r.creator_id === person)?.id ?? '';
    const olivia = await signedInBrowser(t, 'p_olivia');
    const all = (await olivia.get('/tokens')).text;
    expect(all).toContain(idOf('p_olivia'));
    expect(all).toContain(idOf('p_dan'));
    expect(all).not.toContain(idOf('p_gina'));
    const dan = await signedInBrowser(t, 'p_dan');
    const own = (await dan.get('/tokens')).text;
    expect(own).toContain(idOf('p_dan'));
    expect(own).not.toContain(idOf('p_olivia'));
    expect((await dan.post(`/tokens/${idOf('p_olivia')}/revoke`)).status).toBe(404);
    expect((await olivia.post(`/tokens/${idOf('p_gina')}/revoke`)).status).toBe(404);
    expect(await t.count('gatehouse_credentials', 'revoked_at IS NOT NULL')).toBe(0);
    expect(await auditOf(t, 'token.revoke')).toEqual([]);
  });
});

describe('the audit page', () => {
  it('lists the workspace’s rows newest first and filters by channel, person, action and time', async () => {
    await using t = await testApp();
    const b = await signedInBrowser(t, 'p_olivia');
    await b.get('/switches');
    await b.post('/switches/workspace', { on: '0' });
    await b.post('/switches/workspace', { on: '1' });
    await t.mint({ personId: 'p_dan', rights: ['bookings.read'] });
    await t.mint({ workspaceId: 'ws_globex', personId: 'p_gina' });
    const all = await b.get('/audit');
    expect(all.status).toBe(200);
    const total = await t.count('gatehouse_audit', "tenant_id = 'ws_acme'");
    expect(auditRows(all.text)).toBe(total);
    expect(all.text).not.toContain('p_gina');
    const ids = [...all.text.matchAll(/data-audit-id="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(ids).toEqual([...ids].sort().reverse());
    expect(auditRows((await b.get('/audit?tool=switch.set')).text)).toBe(2);
    expect(auditRows((await b.get('/audit?channel=cli')).text)).toBe(
      await t.count('gatehouse_audit', "tenant_id = 'ws_acme' AND channel = 'cli'"),
    );
    const byDan = await b.get('/audit?person=p_dan');
    expect(auditRows(byDan.text)).toBe(1);
    expect(byDan.text).toContain('token.create');
    const today = new Date(t.app.deps.clock().getTime()).toISOString().slice(0, 10);
    expect(auditRows((await b.get(`/audit?from=${today}&to=${today}`)).text)).toBe(total);
    expect(auditRows((await b.get('/audit?to=2000-01-01')).text)).toBe(0);
    expect(auditRows((await b.get('/audit?from=2999-01-01T00:00:00Z')).text)).toBe(0);
    expect((await b.get('/audit?from=yesterday')).status).toBe(400);
  });

  it('pages by 100 rows with a link to older ones', async () => {
    await using t = await testApp();
    const values = Array.from(
      { length: 130 },
      (_, i) =>
        `('01AUDIT${String(i).padStart(19, '0')}', ${i}, 'api', 'ws_acme', 'p_olivia', 'test.row', 'ok', '[]')`,
    );
    await t.exec(
      `INSERT INTO gatehouse_audit (id, at, channel, tenant_id, actor_id, action, outcome, object_ids) VALUES ${values.join(', ')}`,
    );
    const b = await signedInBrowser(t, 'p_olivia');
    const first = await b.get('/audit?tool=test.row');
    expect(auditRows(first.text)).toBe(100);
    const next = /data-next-page href="([^"]+)"/.exec(first.text)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(next).toContain('before=');
    const second = await b.get(next);
    expect(auditRows(second.text)).toBe(30);
    expect(second.text).not.toContain('data-next-page');
  });

  it('reads a workspace she owns by membership, and answers 404 for one she does not own now', async () => {
    await using t = await testApp();
    await t.mint({ workspaceId: 'ws_globex', personId: 'p_gina' });
    const olivia = await signedInBrowser(t, 'p_olivia');
    const viewer = await olivia.get('/audit?workspace=ws_globex');
    expect(viewer.status).toBe(404);
    expect(viewer.text).not.toContain('p_gina');
    expect((await olivia.get('/audit')).text).not.toContain('data-audit-workspace');

    await t.app.people.setRole((await t.app.people.get('ws_globex', 'p_olivia'))!, 'owner', cliActor());
    const own = await olivia.get('/audit');
    expect(auditRows(own.text)).toBe(await t.count('gatehouse_audit', "tenant_id = 'ws_acme'"));
    expect(own.text).toContain('data-audit-workspace');
    expect(own.text).not.toContain('p_gina');
    const globex = await olivia.get('/audit?workspace=ws_globex&tool=token.create');
    expect(globex.status).toBe(200);
    expect(auditRows(globex.text)).toBe(
      await t.count('gatehouse_audit', "tenant_id = 'ws_globex' AND action = 'token.create'"),
    );
    expect(globex.text).toContain('p_gina');
    expect(globex.text).toContain('data-audit-of="ws_globex"');
    expect((await olivia.get('/audit?workspace=ws_nowhere')).status).toBe(404);
  });

  it('is for owners only', async () => {
    await using t = await testApp();
    const dan = await signedInBrowser(t, 'p_dan');
    const page = await dan.get('/audit');
    expect(page.status).toBe(403);
    expect(auditRows(page.text)).toBe(0);
  });
});
