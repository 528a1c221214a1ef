import { ToolError } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { CONSOLE_HEADERS, createConsole } from '../src/index.js';
import { desk, ORIGIN, PEOPLE } from './host.js';

const expectConsoleHeaders = (headers: Headers) => {
  for (const [name, value] of Object.entries(CONSOLE_HEADERS)) expect(headers.get(name), name).toBe(value);
};

describe('the console mounted by a host with its own sign-in', () => {
  it('sends a visitor to the host sign-in, coming back to the page asked for', async () => {
    const d = desk();
    const page = await d.browser().get('/approvals/pa_1?x=1');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/approvals/pa_1?x=1')}`);
    expectConsoleHeaders(page.headers);
  });

  it('lists an action awaiting the person, shows what goes out, and approving sends it once, audited', async () => {
    const d = desk();
    const id = await d.ask(PEOPLE.ada!);
    const ada = d.browser(PEOPLE.ada);
    const list = await ada.get('/approvals');
    expect(list.status).toBe(200);
    expect(list.text).toContain(`data-approval-id="${id}"`);
    expect(list.text).toContain('Ada&#39;s assistant');
    const detail = await ada.get(`/approvals/${id}`);
    expect(detail.text).toContain('grace@customer.example');
    expect(detail.text).toMatch(/<time datetime="[^"]+" title="[^"]+ UTC">[^<]+CET<\/time>/);
    const hash = /name="content_hash" value="([^"]+)"/.exec(detail.text)?.[1] ?? '';
    expect(d.sent).toEqual([]);

    const approved = await ada.post(`/approvals/${id}/approve`, { content_hash: hash });
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toBe(`/approvals/${id}`);
    expect(d.sent).toEqual([{ to: 'grace@customer.example', text: 'Your ticket is solved.' }]);
    const after = await ada.get(`/approvals/${id}`);
    expect(after.text).toContain('data-status="executed"');
    expect(after.text).toContain('Approved: sent.');
    // the message shows once
    expect((await ada.get(`/approvals/${id}`)).text).not.toContain('Approved: sent.');

    const again = await ada.post(`/approvals/${id}/approve`, { content_hash: hash });
    expect(again.status).toBe(303);
    expect(d.sent).toHaveLength(1);
    const rows = d.audit.rows.filter((r) => r.action === 'email_customer' && r.outcome === 'ok');
    expect(rows.map((r) => r.note)).toEqual([`approved ${id} by p_ada`]);
  });

  it('rejects: nothing is sent, ever, and the action is closed', async () => {
    const d = desk();
    const id = await d.ask(PEOPLE.ada!);
    const ada = d.browser(PEOPLE.ada);
    await ada.get(`/approvals/${id}`);
    expect((await ada.post(`/approvals/${id}/reject`, { reason: 'wrong customer' })).status).toBe(303);
    expect((await ada.get(`/approvals/${id}`)).text).toContain('data-status="rejected"');
    expect(d.sent).toEqual([]);
    expect((await d.pendingActions.findById(id))?.status).toBe('rejected');
  });

  it('answers 404 to a person the action is not for, and their POST sends nothing', async () => {
    const d = desk();
    const id = await d.ask(PEOPLE.ada!);
    const ben = d.browser(PEOPLE.ben);
    expect((await ben.get(`/approvals/${id}`)).status).toBe(404);
    await ben.get('/tokens');
    expect((await ben.post(`/approvals/${id}/approve`, { content_hash: 'x' })).status).toBe(404);
    expect(d.sent).toEqual([]);
  });

  it('refuses a POST without the CSRF token, with a wrong one, from another origin or none: 403, nothing sent', async () => {
    const d = desk();
    const id = await d.ask(PEOPLE.ada!);
    const ada = d.browser(PEOPLE.ada);
    await ada.get(`/approvals/${id}`);
    for (const options of [
      { csrf: null },
      { csrf: 'f'.repeat(64) },
      { origin: 'https://evil.example' },
      { origin: null },
    ] as const) {
      const page = await ada.post(`/approvals/${id}/approve`, { content_hash: 'x' }, options);
      expect(page.status, JSON.stringify(options)).toBe(403);
      expectConsoleHeaders(page.headers);
    }
    expect(d.sent).toEqual([]);
  });

  it('refuses MCP tokens, Authorization headers and oversized forms before any page', async () => {
    const d = desk();
    const { token } = await d.credentials.mint({
      tenantIds: ['ws_acme'],
      creatorId: 'p_ada',
      rights: ['tickets.read'],
      clientLabel: 'x',
    });
    const ada = d.browser(PEOPLE.ada);
    expect((await ada.get('/approvals', { authorization: 'Bearer abc' })).status).toBe(401);
    expect((await ada.get(`/approvals?t=${token}`)).status).toBe(401);
    expect((await ada.get('/approvals', { cookie: `x=${token}` })).status).toBe(401);
    await ada.get('/switches');
    expect((await ada.post('/switches/workspace', { on: '0', note: token })).status).toBe(401);
    expect((await ada.post('/switches/workspace', { on: '0', pad: 'x'.repeat(17_000) })).status).toBe(413);
    expect(await d.switches.tenantAccess('ws_acme')).toBe(true);
  });

  it('shows every string escaped and cleaned of characters that reorder text (I16)', async () => {
    const d = desk();
    const id = await d.ask(PEOPLE.cy!, 'x@y.example', '<img src=x onerror=alert(1)>\u202Egnp.exe');
    const cy = d.browser(PEOPLE.cy);
    const page = await cy.get(`/approvals/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).not.toContain('\u202E');
    expect(page.text).toContain('Cy &lt;b&gt;Two&lt;/b&gt;evil');
  });

  it('lets an owner switch agent access off and on, audited; an agent gets 403; the operator the global switch', async () => {
    const d = desk();
    const ada = d.browser(PEOPLE.ada);
    await ada.get('/switches');
    expect((await ada.post('/switches/workspace', { on: '0', workspace: 'ws_acme' })).status).toBe(303);
    expect(await d.switches.tenantAccess('ws_acme')).toBe(false);
    const shown = await ada.get('/switches');
    expect(shown.text).toContain('Agent access off for this workspace.');
    expect(shown.text).toContain('<span data-changed-by>Ada Owner</span>');
    expect(await ada.post('/switches/global', { on: '1' }).then((p) => p.status)).toBe(303);
    expect(await d.switches.isGlobalOn()).toBe(true);
    expect(d.audit.rows.filter((r) => r.action === 'switch.set').map((r) => r.actorId)).toEqual([
      'p_ada',
      'p_ada',
    ]);

    const ben = d.browser(PEOPLE.ben);
    expect((await ben.get('/switches')).status).toBe(403);
    // Cy owns Bolt but not Acme, and is no operator
    const cy = d.browser(PEOPLE.cy);
    await cy.get('/switches');
    expect((await cy.post('/switches/workspace', { on: '1', workspace: 'ws_acme' })).status).toBe(404);
    expect((await cy.post('/switches/global', { on: '0' })).status).toBe(403);
    expect(await d.switches.tenantAccess('ws_acme')).toBe(false);
    expect(await d.switches.isGlobalOn()).toBe(true);
  });

  it('mints a token shown once, lists it, revokes it; an agent sees only their own and cannot revoke another', async () => {
    const d = desk();
    const ada = d.browser(PEOPLE.ada);
    await ada.get('/tokens');
    const minted = await ada.post('/tokens', { label: 'Claude', rights: ['tickets.read'] });
    const token = /<pre data-minted-token>([^<]+)<\/pre>/.exec(minted.text)?.[1] ?? '';
    expect(d.credentials.isMcpToken(token)).toBe(true);
    expect((await ada.get('/tokens')).text).not.toContain(token);
    const [record] = await d.credentialStore.list({ tenantId: 'ws_acme', limit: 10 });
    expect(record).toMatchObject({ clientLabel: 'Claude', creatorId: 'p_ada', rights: ['tickets.read'] });

    const ben = d.browser(PEOPLE.ben);
    expect((await ben.get('/tokens')).text).not.toContain(record!.id);
    expect((await ben.post(`/tokens/${record!.id}/revoke`)).status).toBe(404);
    expect((await ada.post(`/tokens/${record!.id}/revoke`)).status).toBe(303);
    expect((await d.credentialStore.findById(record!.id))?.revokedAt).not.toBeNull();
    expect(d.audit.rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(['token.create', 'token.revoke']),
    );
  });

  it('refuses rights the person does not hold now: 400, nothing written', async () => {
    const d = desk();
    const ben = d.browser(PEOPLE.ben);
    await ben.get('/tokens');
    const page = await ben.post('/tokens', { label: 'x', rights: ['admin.everything'] });
    expect(page.status).toBe(400);
    expect(await d.credentialStore.list({ tenantId: 'ws_acme', limit: 10 })).toEqual([]);
  });

  it('reads the audit log of a workspace the person owns, filtered; others get 403 or 404', async () => {
    const d = desk();
    await d.ask(PEOPLE.ada!);
    const ada = d.browser(PEOPLE.ada);
    await ada.get('/switches');
    await ada.post('/switches/workspace', { on: '0', workspace: 'ws_acme' });
    const all = await ada.get('/audit');
    expect(all.status).toBe(200);
    expect(all.text).toContain('switch.set');
    const filtered = await ada.get('/audit?tool=switch.set');
    expect(filtered.text.match(/data-audit-row/g)).toHaveLength(1);
    expect((await ada.get('/audit?channel=nothing')).text).toContain('No audit rows match.');
    expect((await ada.get('/audit?from=yesterday')).status).toBe(400);
    expect((await ada.get('/audit?workspace=ws_bolt')).status).toBe(404);
    expect((await d.browser(PEOPLE.ben).get('/audit')).status).toBe(403);
  });

  it('refuses a request carrying one of its cookies twice, and deletes both', async () => {
    const d = desk();
    const page = await d
      .browser(PEOPLE.ada)
      .get('/approvals', { cookie: 'desk_session=x; __Host-console_flash=a; __Host-console_flash=b' });
    expect(page.status).toBe(400);
    expect(page.cookies.filter((c) => c.startsWith('__Host-console_flash=;'))).toHaveLength(1);
  });

  it('refuses the host session cookie sent twice before asking who it names', async () => {
    const d = desk();
    const cy = d.signInAs(PEOPLE.cy!);
    const ada = d.browser(PEOPLE.ada);
    const page = await ada.get('/approvals', {
      cookie: `desk_session=${ada.jar.get('desk_session')}; desk_session=${cy}`,
    });
    expect(page.status).toBe(400);
    expect(page.text).not.toContain('Cy');
    expect(page.cookies.filter((c) => c.startsWith('desk_session=;')).length).toBeGreaterThan(0);
  });

  it('answers a store outage with 503 and Retry-After, and a failure with 500 naming no cause', async () => {
    const failures: Error[] = [];
    const outage = desk({
      audit: {
        append: async () => undefined,
        list: async () => {
          throw new ToolError({ code: 'store_unavailable', message: 'down', fix: 'retry' });
        },
      },
    });
    const down = await outage.browser(PEOPLE.ada).get('/audit');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    const broken = desk({
      audit: {
        append: async () => undefined,
        list: async () => {
          throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db');
        },
      },
      onError: (error) => failures.push(error),
    });
    const failed = await broken.browser(PEOPLE.ada).get('/audit');
    expect(failed.status).toBe(500);
    expect(failed.text).not.toContain('hunter2');
    expect(failures.map((e) => e.message)).toEqual(['connect ECONNREFUSED postgres://admin:hunter2@db']);
    expectConsoleHeaders(failed.headers);
  });
});

describe('createConsole options', () => {
  it('mounts under a base path: links, forms and redirects carry it; other paths are not its own', async () => {
    const d = desk({ basePath: '/console' });
    const id = await d.ask(PEOPLE.ada!);
    const ada = d.browser(PEOPLE.ada);
    const list = await ada.get('/console/approvals');
    expect(list.text).toContain(`href="/console/approvals/${id}"`);
    expect(list.text).toContain('href="/console/assets/console.css"');
    expect((await ada.get('/approvals')).status).toBe(404);
    expect(d.console.handles('/console/tokens')).toBe(true);
    expect(d.console.handles('/consoleX')).toBe(false);
    expect(d.console.handles('/api/x')).toBe(false);
    const detail = await ada.get(`/console/approvals/${id}`);
    expect(detail.text).toContain(`action="/console/approvals/${id}/approve"`);
  });

  it.each([
    ['a base path with a slash at the end', { basePath: '/console/' }],
    ['a base path with a quote', { basePath: '/x"y' }],
    ['a cookie prefix with a dash', { cookiePrefix: 'a-b' }],
    [
      'a credential store that cannot list',
      { credentialStore: { findById: async () => undefined } as never },
    ],
    ['no sign-in', { signIn: undefined as never }],
  ])('refuses %s', (_name, bad) => {
    expect(() => desk(bad)).toThrow(TypeError);
  });

  it('serves a module page with the layout, the person and a CSRF-checked form', async () => {
    const seen: string[] = [];
    const d = desk({
      modules: [
        {
          name: 'notes',
          nav: { label: 'Notes', path: '/notes' },
          routes: [
            {
              method: 'GET',
              path: '/notes',
              handler: (r) =>
                r.page.render(200, {
                  title: 'Notes',
                  body: r.page
                    .html`<form method="post" action="${r.page.path('/notes')}">${r.page.csrfField()}<input name="text"></form><p>${r.person?.name}</p>`,
                }),
            },
            {
              method: 'POST',
              path: '/notes',
              handler: (r) => {
                seen.push(r.form?.get('text') ?? '');
                return r.page.seeOther('/notes', 'Saved.');
              },
            },
          ],
        },
      ],
    });
    const ada = d.browser(PEOPLE.ada);
    const page = await ada.get('/notes');
    expect(page.text).toContain('<a href="/notes" aria-current="page">Notes</a>');
    expect(page.text).toContain('<p>Ada Owner</p>');
    expect((await ada.post('/notes', { text: 'x' }, { csrf: 'bad' })).status).toBe(403);
    expect((await ada.post('/notes', { text: 'hello' })).status).toBe(303);
    expect((await ada.get('/notes')).text).toContain('Saved.');
    expect(seen).toEqual(['hello']);
    expect((await d.browser().get('/notes')).status).toBe(303);
  });

  it('lists a sign-in package’s grants as connected apps, and disconnects one of the person’s', async () => {
    const ended: string[] = [];
    const d = desk({
      grants: {
        list: async ({ personId }) =>
          [
            {
              id: 'g1',
              clientName: 'Cursor',
              personId: 'p_ben',
              workspaceId: 'ws_acme',
              rights: ['tickets.read'],
              createdAt: 0,
              expiresAt: null,
              revokedAt: null,
            },
            {
              id: 'g2',
              clientName: 'Zed',
              personId: 'p_ada',
              workspaceId: 'ws_acme',
              rights: ['tickets.read'],
              createdAt: 0,
              expiresAt: null,
              revokedAt: null,
            },
          ].filter((g) => personId === undefined || g.personId === personId),
        revoke: async (id) => {
          ended.push(id);
          return true;
        },
      },
    });
    const ben = d.browser(PEOPLE.ben);
    const page = await ben.get('/tokens');
    expect(page.text).toContain('data-grant-id="g1"');
    expect(page.text).not.toContain('data-grant-id="g2"');
    expect((await ben.post('/tokens/grants/g2/revoke')).status).toBe(404);
    expect((await ben.post('/tokens/grants/g1/revoke')).status).toBe(303);
    expect(ended).toEqual(['g1']);
  });

  it('creates a console from the smallest options', () => {
    const d = desk();
    expect(
      createConsole({
        origin: ORIGIN,
        signIn: { personOf: async () => undefined, signInUrl: () => '/login' },
        credentials: d.credentials,
        credentialStore: d.credentialStore,
        switches: d.switches,
        audit: d.audit,
      }).handles('/approvals'),
    ).toBe(true);
  });
});
