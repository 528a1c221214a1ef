/**
 * A client identified by a Client ID Metadata Document: no registration (it
 * stays off), the provider fetches the document named by the https
 * `client_id`, the person consents to the client by the name it publishes,
 * and only the redirect URIs it lists are accepted. The document is served
 * by a fetch the test hands the provider, so no network is needed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeQuery,
  consent,
  metadataDocument,
  pkce,
  reachConsent,
  redeemCode,
  sceneOf,
} from './fixtures/oauthFlow.js';
import { rawClient } from './fixtures/raw.js';
import { seededTemplate, testApp } from './fixtures/testApp.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-cimd-')));
});

const CLIENT_ID = 'https://client.example/desktop.json';

/** Serves the client's metadata document and records every URL asked for. */
function documentServer() {
  const asked: string[] = [];
  const fetch = async (url: URL | string): Promise<Response> => {
    asked.push(String(url));
    if (String(url) !== CLIENT_ID) return new Response('not found', { status: 404 });
    return new Response(JSON.stringify(metadataDocument(CLIENT_ID)), {
      headers: { 'content-type': 'application/json' },
    });
  };
  return { asked, fetch };
}

describe('a Client ID Metadata Document client', () => {
  it('is fetched by its client_id, consented to by its published name, and gets a token for MCP', async () => {
    const server = documentServer();
    await using t = await testApp({ template, oauth: { fetch: server.fetch } });
    const scene = await sceneOf(t);
    const { verifier, challenge } = pkce();
    const path = await reachConsent(scene, authorizeQuery(scene, CLIENT_ID, challenge));
    expect(server.asked).toContain(CLIENT_ID);
    const page = await scene.browser.get(path);
    expect(page.text).toContain('<strong data-client-name>Metadata Desktop</strong>');
    const back = await consent(scene, path, { decision: 'grant', rights: ['bookings.read'] });
    const tokens = await redeemCode(scene.origin, scene.mcpUrl, { clientId: CLIENT_ID, verifier }, back);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect((await rawClient(scene.mcpUrl, String(tokens.body.access_token)).listTools()).status).toBe(200);
    expect(await t.count('gatehouse_credentials', "client_label = 'OAuth: Metadata Desktop'")).toBe(1);
    expect((await fetch(`${scene.origin}/oauth/register`, { method: 'POST' })).status).toBe(404);
  });

  it('refuses a redirect URI its document does not list', async () => {
    const server = documentServer();
    await using t = await testApp({ template, oauth: { fetch: server.fetch } });
    const scene = await sceneOf(t);
    const answer = await scene.browser.get(
      authorizeQuery(scene, CLIENT_ID, pkce().challenge, { redirect_uri: 'http://127.0.0.1/other' }),
    );
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await t.count('gatehouse_oauth_records', "model = 'Interaction'")).toBe(0);
  });
});
