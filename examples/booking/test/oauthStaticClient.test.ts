/**
 * Pre-registered public clients (`npm run booking -- oauth-client add`): the
 * registry's rules, a registered native client completing the flow from any
 * loopback port with dynamic registration off, and a removed client refused
 * at the authorization and token endpoints, its grants revoked with it so
 * its access tokens stop at once. Every change is audited.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientRegistrationError, clientMetadata } from '@gatehousejs/oauth';
import { CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliActor, clientsOf } from '../src/cli/commands.js';
import {
  authorizeQuery,
  consent,
  pkce,
  reachConsent,
  redeemCode,
  sceneOf,
  tokenRequest,
} from './fixtures/oauthFlow.js';
import { rawClient } from './fixtures/raw.js';
import { seededTemplate, type TestApp, testApp } from './fixtures/testApp.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-static-')));
});

const CLIENT = { id: 'desk-app', name: 'Desk App', redirectUris: ['http://127.0.0.1/callback'] };

async function count(t: TestApp, sql: string, ...params: unknown[]): Promise<number> {
  const { rows } = await t.app.database.kysely.executeQuery<{ n: number }>(CompiledQuery.raw(sql, params));
  return Number(rows[0]?.n);
}

describe('the client registry', () => {
  it('describes a loopback client as native and an https one as web, both public with PKCE', () => {
    expect(clientMetadata(CLIENT)).toEqual({
      client_id: 'desk-app',
      client_name: 'Desk App',
      redirect_uris: ['http://127.0.0.1/callback'],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(
      clientMetadata({ id: 'web.app', name: 'Web', redirectUris: ['https://app.example/cb'] }),
    ).toMatchObject({ application_type: 'web' });
  });

  it.each([
    ['a URL as id (those are metadata-document clients)', { id: 'https://x.example/c.json' }],
    ['a short id', { id: 'ab' }],
    ['an empty name', { name: '  ' }],
    ['no redirect URI', { redirectUris: [] }],
    ['plain http off loopback', { redirectUris: ['http://app.example/cb'] }],
    ['a fragment', { redirectUris: ['https://app.example/cb#x'] }],
    ['credentials in the URI', { redirectUris: ['https://u:p@app.example/cb'] }],
    ['a relative URI', { redirectUris: ['/callback'] }],
    ['web and native mixed', { redirectUris: ['https://app.example/cb', 'http://127.0.0.1/cb'] }],
  ])('refuses %s, writing nothing', async (_what, change) => {
    await using t = await testApp({ template });
    const client = { ...CLIENT, ...change };
    const error = await clientsOf(t.app)
      .save(client, cliActor())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientRegistrationError);
    expect((error as Error).message).not.toContain('u:p@'); // a credential is never echoed
    expect(await count(t, "SELECT count(*) AS n FROM gatehouse_oauth_records WHERE model = 'Client'")).toBe(
      0,
    );
    expect(
      await count(t, "SELECT count(*) AS n FROM gatehouse_audit WHERE action LIKE 'oauth_client.%'"),
    ).toBe(0);
  });

  it('registers, replaces, lists and removes, one audit row per change', async () => {
    await using t = await testApp({ template });
    const clients = clientsOf(t.app);
    expect(await clients.save(CLIENT, cliActor())).toBe(false);
    expect(await clients.save({ ...CLIENT, name: 'Desk App 2' }, cliActor())).toBe(true);
    expect(await clients.list()).toEqual([
      { id: 'desk-app', name: 'Desk App 2', redirectUris: ['http://127.0.0.1/callback'] },
    ]);
    expect(await clients.remove('desk-app', cliActor())).toEqual({
      revokedGrants: 0,
    });
    expect(await clients.remove('desk-app', cliActor())).toBeUndefined();
    expect(await clients.list()).toEqual([]);
    expect(
      await count(
        t,
        "SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'oauth_client.add' AND channel = 'cli'",
      ),
    ).toBe(2);
    expect(
      await count(
        t,
        "SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'oauth_client.remove' AND object_ids LIKE '%desk-app%'",
      ),
    ).toBe(1);
  });
});

describe('a pre-registered client', () => {
  it('completes the flow from any loopback port with registration off; once removed it can neither start nor refresh', async () => {
    await using t = await testApp({ template });
    await clientsOf(t.app).save(CLIENT, cliActor());
    const scene = await sceneOf(t);
    expect((await fetch(`${scene.origin}/oauth/register`, { method: 'POST' })).status).toBe(404);
    const redirectUri = 'http://127.0.0.1:49215/callback';
    const { verifier, challenge } = pkce();
    const query = authorizeQuery(scene, CLIENT.id, challenge, { redirect_uri: redirectUri });
    const consentPath = await reachConsent(scene, query);
    const page = await scene.browser.get(consentPath);
    expect(page.text).toContain('Desk App');
    const back = await consent(scene, consentPath, { decision: 'grant', rights: ['bookings.read'] });
    expect(back.origin + back.pathname).toBe(redirectUri);
    expect(back.searchParams.get('iss')).toBe(scene.origin);
    const tokens = await redeemCode(
      scene.origin,
      scene.mcpUrl,
      { clientId: CLIENT.id, verifier, redirectUri: redirectUri },
      back,
    );
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(
      await count(
        t,
        "SELECT count(*) AS n FROM gatehouse_credentials WHERE client_label = 'OAuth: Desk App'",
      ),
    ).toBe(1);

    const accessToken = String(tokens.body.access_token);
    expect((await rawClient(scene.mcpUrl, accessToken).listTools()).status).toBe(200);
    const grantId = String(
      (
        await t.app.database.kysely
          .selectFrom('gatehouse_oauth_records')
          .select('id')
          .where('model', '=', 'Grant')
          .executeTakeFirst()
      )?.id,
    );

    expect(await clientsOf(t.app).remove(CLIENT.id, cliActor())).toEqual({
      revokedGrants: 1,
    });
    // its access ends at once, not when its ten-minute access token runs out
    expect((await rawClient(scene.mcpUrl, accessToken).listTools()).status).toBe(401);
    expect(
      await count(
        t,
        'SELECT count(*) AS n FROM gatehouse_credentials WHERE id = ? AND revoked_at IS NOT NULL',
        grantId,
      ),
    ).toBe(1);
    expect(
      await count(
        t,
        "SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'token.revoke' AND channel = 'cli' AND object_ids LIKE ?",
        `%${grantId}%`,
      ),
    ).toBe(1);
    expect(
      await count(
        t,
        'SELECT count(*) AS n FROM gatehouse_oauth_records WHERE grant_id = ? OR id = ?',
        grantId,
        grantId,
      ),
    ).toBe(0);
    const refreshed = await tokenRequest(scene.origin, {
      grant_type: 'refresh_token',
      refresh_token: String(tokens.body.refresh_token),
      client_id: CLIENT.id,
    });
    expect(refreshed).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const again = await scene.browser.get(authorizeQuery(scene, CLIENT.id, pkce().challenge));
    expect(again.status).toBe(400);
    expect(again.text).toContain('invalid_client');
  });
});
