/**
 * One sign-in, several workspaces: a person who also works in another
 * workspace (a membership, with its own role there) picks the workspace on
 * the consent page, and the token is for that one workspace only (I3), its
 * rights capped by the role there (I4) and re-checked live. A workspace the
 * person does not work in cannot be posted; a person of one workspace sees
 * no picker.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliActor } from '../src/cli/commands.js';
import {
  authorizeQuery,
  consent,
  type OAuthScene,
  pkce,
  reachConsent,
  redeemCode,
  registerClient,
  sceneOf,
} from './fixtures/oauthFlow.js';
import { rawClient } from './fixtures/raw.js';
import { seededTemplate, type TestApp, testApp } from './fixtures/testApp.js';
import { hiddenFieldsIn, PagesBrowser, passwordOf } from './pagesClient.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-workspaces-')));
});

const oauthApp = () => testApp({ template, oauth: { dynamicRegistration: true } });

/** Up to the consent page, as `personId`; returns what the token request needs. */
async function startFlow(scene: OAuthScene, personId = 'p_olivia') {
  const clientId = await registerClient(scene.origin);
  const { verifier, challenge } = pkce();
  const path = await reachConsent(scene, authorizeQuery(scene, clientId, challenge), personId);
  return { clientId, verifier, path };
}

async function redeem(scene: OAuthScene, flow: { clientId: string; verifier: string }, back: URL) {
  const tokens = await redeemCode(
    scene.origin,
    scene.mcpUrl,
    { clientId: flow.clientId, verifier: flow.verifier },
    back,
  );
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return String(tokens.body.access_token);
}

const oauthCredentials = (t: TestApp) =>
  t.rows<{ tenant_ids: string; rights: string; creator_id: string }>(
    "SELECT tenant_ids, rights, creator_id FROM gatehouse_credentials WHERE client_label LIKE 'OAuth:%'",
  );

const callText = (reply: { result?: unknown }) => JSON.stringify(reply.result ?? null);

describe('the people directory with memberships', () => {
  it('gives a member the role of the membership there, and changes only that membership', async () => {
    await using t = await oauthApp();
    const { people } = t.app;
    expect((await people.workspacesOf('p_olivia')).map((w) => [w.workspaceId, w.role])).toEqual([
      ['ws_acme', 'owner'],
      ['ws_globex', 'viewer'],
    ]);
    const guest = await people.get('ws_globex', 'p_olivia');
    expect(guest).toMatchObject({ workspaceId: 'ws_globex', role: 'viewer', active: true, operator: false });
    expect((await people.standing('ws_globex', 'p_olivia'))?.rights).toEqual([
      'customers.read',
      'bookings.read',
    ]);
    expect(await people.get('ws_globex', 'p_dan')).toBeUndefined();

    await people.setRole(guest!, 'dispatcher', cliActor());
    expect((await people.get('ws_globex', 'p_olivia'))?.role).toBe('dispatcher');
    expect((await people.get('ws_acme', 'p_olivia'))?.role).toBe('owner');

    await people.deactivate((await people.get('ws_globex', 'p_olivia'))!, cliActor());
    expect((await people.standing('ws_globex', 'p_olivia'))?.active).toBe(false);
    expect((await people.standing('ws_acme', 'p_olivia'))?.active).toBe(true);
    expect((await people.workspacesOf('p_olivia')).map((w) => w.workspaceId)).toEqual(['ws_acme']);
    expect(
      await t.count(
        'gatehouse_audit',
        "action IN ('person.role', 'person.deactivate') AND tenant_id = 'ws_globex'",
      ),
    ).toBe(2);

    await people.deactivate((await people.get('ws_acme', 'p_olivia'))!, cliActor());
    expect(await people.workspacesOf('p_olivia')).toEqual([]);
  });
});

describe('the consent page for a person of several workspaces', () => {
  it('offers a picker, and a token for the workspace picked: its data only, its role’s rights, checked live', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await startFlow(scene);
    const first = await scene.browser.get(flow.path);
    expect(first.text).toContain('data-workspace>Acme Heating</strong>');
    expect(first.text).toContain(
      `<a data-workspace-link="ws_globex" href="${flow.path}?workspace=ws_globex">Globex Plumbing (viewer)</a>`,
    );
    expect(first.text).not.toContain('<select name="workspace"');
    const picked = await scene.browser.get(`${flow.path}?workspace=ws_globex`);
    expect(picked.status).toBe(200);
    expect(picked.text).toContain('data-workspace>Globex Plumbing</strong>');
    expect(picked.text).toContain('<input type="hidden" name="workspace" value="ws_globex">');
    expect(picked.text).toContain('Allow for Globex Plumbing');

    const back = await consent(scene, `${flow.path}?workspace=ws_globex`, {
      decision: 'grant',
      rights: ['bookings.read', 'customers.read'],
    });
    const token = await redeem(scene, flow, back);
    const [credential] = await oauthCredentials(t);
    expect(credential).toMatchObject({ creator_id: 'p_olivia', tenant_ids: '["ws_globex"]' });
    expect(
      await t.count(
        'gatehouse_audit',
        "action = 'token.create' AND channel = 'oauth' AND tenant_id = 'ws_globex'",
      ),
    ).toBe(1);

    const found = await rawClient(scene.mcpUrl, token).callTool('find_bookings', {});
    expect(found.status).toBe(200);
    expect(callText(found)).toContain('Linus Pauling');
    expect(callText(found)).not.toContain('Ada Lovelace');

    // the membership ends: the same token answers 401 on its next request (I4)
    await t.app.people.deactivate((await t.app.people.get('ws_globex', 'p_olivia'))!, cliActor());
    expect((await rawClient(scene.mcpUrl, token).listTools()).status).toBe(401);
  });

  it('lists the grant on the person’s tokens page and the workspace owner’s; either may revoke it, nobody else', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await startFlow(scene);
    const back = await consent(scene, `${flow.path}?workspace=ws_globex`, {
      decision: 'grant',
      rights: ['bookings.read'],
    });
    const token = await redeem(scene, flow, back);
    const [row] = await t.rows<{ id: string }>(
      "SELECT id FROM gatehouse_credentials WHERE client_label LIKE 'OAuth:%'",
    );
    const own = await scene.browser.get('/tokens');
    expect(own.text).toContain('data-list="elsewhere"');
    expect(own.text.slice(own.text.indexOf('data-list="elsewhere"'))).toContain(`data-token-id="${row?.id}"`);

    const gina = new PagesBrowser(scene.origin);
    const ginaLogin = await passwordOf(t, 'p_gina');
    await gina.signIn(ginaLogin.email, ginaLogin.password, '/tokens');
    expect((await gina.get('/tokens')).text).toContain(`data-token-id="${row?.id}"`);
    const dan = new PagesBrowser(scene.origin);
    const danLogin = await passwordOf(t, 'p_dan');
    await dan.signIn(danLogin.email, danLogin.password, '/tokens');
    await dan.get('/tokens');
    expect((await dan.post(`/tokens/${row?.id}/revoke`)).status).toBe(404);
    expect((await rawClient(scene.mcpUrl, token).listTools()).status).toBe(200);

    expect((await scene.browser.post(`/tokens/${row?.id}/revoke`)).status).toBe(303);
    expect((await rawClient(scene.mcpUrl, token).listTools()).status).toBe(401);
    expect(await t.count('gatehouse_audit', "action = 'token.revoke' AND actor_id = 'p_olivia'")).toBe(1);
  });

  it('refuses a right the role there lacks, and a workspace the person does not work in, minting nothing', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await startFlow(scene);
    const picked = await scene.browser.get(`${flow.path}?workspace=ws_globex`);
    expect(picked.text).not.toContain('data-not-held="bookings.read"');
    const beyond = await scene.browser.post(flow.path, {
      ...hiddenFieldsIn(picked.text),
      decision: 'grant',
      rights: ['bookings.read', 'bookings.write'],
    });
    expect(beyond.status).toBe(400);
    expect(beyond.text).toContain('You cannot grant bookings.write in Globex Plumbing');
    const elsewhere = await scene.browser.post(flow.path, {
      ...hiddenFieldsIn(picked.text),
      decision: 'grant',
      workspace: 'ws_nowhere',
      rights: ['bookings.read'],
    });
    expect(elsewhere.status).toBe(404);
    expect((await scene.browser.get(`${flow.path}?workspace=ws_nowhere`)).status).toBe(404);
    expect(await oauthCredentials(t)).toEqual([]);
    expect(await t.count('gatehouse_audit', "action = 'token.create'")).toBe(0);
  });

  it('shows a person of one workspace no picker, and refuses another workspace posted anyway', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await startFlow(scene, 'p_dan');
    const page = await scene.browser.get(flow.path);
    expect(page.text).not.toContain('data-workspace-link');
    const posted = await scene.browser.post(flow.path, {
      ...hiddenFieldsIn(page.text),
      decision: 'grant',
      workspace: 'ws_globex',
      rights: ['bookings.read'],
    });
    expect(posted.status).toBe(404);
    expect(await oauthCredentials(t)).toEqual([]);
  });

  it('grants only what the page showed: a workspace or rights posted unlike the page rendered them are shown again, minting nothing', async () => {
    await using t = await oauthApp();
    const scene = await sceneOf(t);
    const flow = await startFlow(scene);
    // the page showed Globex (viewer: read rights only); the post names Acme, where she holds every right
    const globex = await scene.browser.get(`${flow.path}?workspace=ws_globex`);
    const swapped = await scene.browser.post(flow.path, {
      ...hiddenFieldsIn(globex.text),
      workspace: 'ws_acme',
      decision: 'grant',
      rights: ['bookings.read'],
    });
    expect(swapped.status).toBe(409);
    expect(swapped.text).toContain('changed since the page was shown');
    expect(swapped.text).toContain('data-workspace>Acme Heating</strong>');
    // a post without the page's seal (a form made by hand) is shown again too
    const unsealed = await scene.browser.post(flow.path, {
      decision: 'grant',
      workspace: 'ws_acme',
      rights: ['bookings.read'],
    });
    expect(unsealed.status).toBe(409);
    // the role there changes after the page was rendered: the seal no longer matches what may be granted
    const wider = await reachConsent(
      scene,
      authorizeQuery(scene, flow.clientId, pkce().challenge, { scope: 'bookings.read bookings.write' }),
    );
    const acme = await scene.browser.get(wider);
    expect(acme.text).toContain('value="bookings.write" checked');
    await t.app.people.setRole((await t.app.people.get('ws_acme', 'p_olivia'))!, 'viewer', cliActor());
    const stale = await scene.browser.post(wider, {
      ...hiddenFieldsIn(acme.text),
      decision: 'grant',
      rights: ['bookings.read'],
    });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('data-not-held="bookings.write"');
    expect(await oauthCredentials(t)).toEqual([]);
    expect(await t.count('gatehouse_audit', "action = 'token.create'")).toBe(0);
    expect(await t.count('gatehouse_oauth_records', "model = 'Grant'")).toBe(0);
  });
});
