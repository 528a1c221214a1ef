/**
 * `@gatehousejs/oauth` mounted in a minimal host (test/host.ts) on memory
 * and on SQLite stores, every request over HTTP: a pre-registered client
 * authorizes with PKCE, the person consents on the console's page, the code
 * becomes tokens whose grant is a Gatehouse credential for one workspace,
 * the MCP endpoint takes the access token with the person's live rights,
 * refresh tokens rotate and a reused one ends the grant, and revoking the
 * credential or removing the client ends every token at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@gatehousejs/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuthorizationServer } from '../src/index.js';
import {
  answerConsent,
  authorize,
  authorizeQuery,
  browserOf,
  CLIENT,
  listTickets,
  OPERATOR,
  pkce,
  redeem,
  refresh,
  startAuthorization,
} from './flow.js';
import { DESK_SCOPES, type DeskStores, memoryStores, sqliteStores, startDesk } from './host.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function storesOf(kind: 'memory' | 'sqlite'): DeskStores {
  if (kind === 'memory') return memoryStores();
  const dir = mkdtempSync(join(tmpdir(), 'oauth-desk-'));
  const stores = sqliteStores(join(dir, 'desk.db'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return stores;
}

async function desk(kind: 'memory' | 'sqlite') {
  const stores = storesOf(kind);
  const started = await startDesk({ stores });
  cleanups.push(() => stores.close());
  cleanups.push(() => started.close());
  await started.clients.save(CLIENT, OPERATOR);
  return { ...started, stores };
}

/** Ada signs in, authorizes the client through consent for `tickets.read`, and the code is redeemed. */
async function granted(d: Awaited<ReturnType<typeof desk>>) {
  const browser = browserOf(d.origin, d.signIn('p_ada'));
  const authorization = await authorize(browser, d.mcpUrl.href, { rights: ['tickets.read'] });
  const tokens = await redeem(d.address, d.mcpUrl.href, authorization);
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return { browser, tokens };
}

describe.each(['memory', 'sqlite'] as const)('the authorization server on %s stores', (kind) => {
  it('authorizes with PKCE through consent: the grant is a credential for one workspace, and the MCP endpoint takes its token', async () => {
    const d = await desk(kind);
    const browser = browserOf(d.origin, d.signIn('p_ada'));
    const authorization = await authorize(browser, d.mcpUrl.href, { rights: ['tickets.read'] });
    expect(authorization.iss).toBe(d.origin);

    const tokens = await redeem(d.address, d.mcpUrl.href, authorization);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toMatchObject({
      token_type: 'Bearer',
      scope: expect.stringContaining('tickets.read'),
    });
    const access = String(tokens.body.access_token);

    // the grant is a Gatehouse credential: one tenant, the rights granted, audited as a mint
    const verified = await d.oauth.verify(access);
    expect(verified).toMatchObject({ subject: 'p_ada', tenantIds: ['ws_acme'], scopes: ['tickets.read'] });
    const credential = await d.stores.credentials.findById(verified?.grantId ?? '');
    expect(credential).toMatchObject({
      creatorId: 'p_ada',
      tenantIds: ['ws_acme'],
      rights: ['tickets.read'],
      clientLabel: 'OAuth: Desk App',
      revokedAt: null,
    });
    const mints = await d.stores.audit.list({ tenantId: 'ws_acme', action: 'token.create', limit: 50 });
    expect(mints.map((row) => row.objectIds)).toContainEqual([credential?.id]);

    const call = await listTickets(d.address, access);
    expect(call.status).toBe(200);
    expect(call.tickets).toEqual(['Printer on fire', 'Refund for order 7']);
    // a code is redeemed once
    expect((await redeem(d.address, d.mcpUrl.href, authorization)).body).toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('binds the token to the workspace the person chose, never another (I3)', async () => {
    const d = await desk(kind);
    const browser = browserOf(d.origin, d.signIn('p_ben'));
    const authorization = await authorize(browser, d.mcpUrl.href, {
      rights: ['tickets.read'],
      workspace: 'ws_bolt',
    });
    const tokens = await redeem(d.address, d.mcpUrl.href, authorization);
    const call = await listTickets(d.address, String(tokens.body.access_token));
    expect(call.tickets).toEqual(['Bolt ticket']);
    // the rights come from the person's standing in the chosen workspace: Ben holds tickets.write in Bolt only
    const consentPath = await startAuthorization(
      browser,
      authorizeQuery(d.mcpUrl.href, pkce().challenge, 'tickets.read tickets.write').path,
    );
    const acme = await browser.get(`${consentPath}?workspace=ws_acme`);
    expect(acme.text).toContain('data-not-held="tickets.write"');
    expect(acme.text).toContain(DESK_SCOPES.words['tickets.write']);
    expect((await browser.get(`${consentPath}?workspace=ws_other`)).status).toBe(404);
  });

  it('cuts the token to the person’s live rights: a right taken away is refused on the next call (I4)', async () => {
    const d = await desk(kind);
    const { tokens } = await granted(d);
    const access = String(tokens.body.access_token);
    expect((await listTickets(d.address, access)).tickets).toHaveLength(2);
    const ada = d.people.ada;
    if (!ada) throw new Error('no Ada');
    ada.rights.ws_acme = ['tickets.write'];
    const refused = await listTickets(d.address, access);
    expect(refused.tickets).toBeUndefined();
    expect(refused.text).not.toContain('Printer on fire');
  });

  it('rotates refresh tokens; a reused one ends the grant, its credential and every token (reuse detection)', async () => {
    const d = await desk(kind);
    const { tokens: first } = await granted(d);
    const oldRefresh = String(first.body.refresh_token);
    const second = await refresh(d.address, d.mcpUrl.href, oldRefresh);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.refresh_token).not.toBe(oldRefresh);
    const access = String(second.body.access_token);
    expect((await listTickets(d.address, access)).status).toBe(200);
    const grantId = (await d.oauth.verify(access))?.grantId ?? '';

    const reused = await refresh(d.address, d.mcpUrl.href, oldRefresh);
    expect(reused.body).toMatchObject({ error: 'invalid_grant' });
    await expect.poll(async () => (await d.stores.credentials.findById(grantId))?.revokedAt).not.toBeNull();
    expect((await listTickets(d.address, access)).status).toBe(401);
    expect((await refresh(d.address, d.mcpUrl.href, String(second.body.refresh_token))).body).toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('revoking the credential (the console’s Tokens page, a CLI) ends its access and refresh tokens at once', async () => {
    const d = await desk(kind);
    const { tokens } = await granted(d);
    const access = String(tokens.body.access_token);
    const grantId = (await d.oauth.verify(access))?.grantId ?? '';
    expect(await d.credentials.revoke(grantId, { actorId: 'p_ada', channel: 'console' })).toBe(true);
    expect((await listTickets(d.address, access)).status).toBe(401);
    expect((await refresh(d.address, d.mcpUrl.href, String(tokens.body.refresh_token))).body).toMatchObject({
      error: 'invalid_grant',
    });
    const revocations = await d.stores.audit.list({ tenantId: 'ws_acme', action: 'token.revoke', limit: 50 });
    expect(revocations.map((row) => row.objectIds)).toContainEqual([grantId]);
  });

  it('removing a registered client revokes its grants, audited, and it can start no authorization', async () => {
    const d = await desk(kind);
    const { browser, tokens } = await granted(d);
    const access = String(tokens.body.access_token);
    expect(await d.clients.list()).toEqual([
      { id: CLIENT.id, name: CLIENT.name, redirectUris: CLIENT.redirectUris },
    ]);
    expect(await d.clients.remove(CLIENT.id, OPERATOR)).toEqual({ revokedGrants: 1 });
    expect(await d.clients.remove(CLIENT.id, OPERATOR)).toBeUndefined();
    expect((await listTickets(d.address, access)).status).toBe(401);
    const start = await browser.get(authorizeQuery(d.mcpUrl.href, pkce().challenge).path);
    expect(start.status).toBe(400);
    const removals = await d.stores.audit.list({ action: 'oauth_client.remove', limit: 50 });
    expect(removals.map((row) => [row.actorId, row.objectIds])).toEqual([['ops', [CLIENT.id]]]);
  });

  it('refuses tokens for another resource, a consent from another browser, and a denial mints nothing', async () => {
    const d = await desk(kind);
    const browser = browserOf(d.origin, d.signIn('p_ada'));
    const other = await browser.get(authorizeQuery('https://other.example/mcp', pkce().challenge).path);
    expect(other.status).toBe(303);
    expect(new URL(other.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_target');

    const consentPath = await startAuthorization(
      browser,
      authorizeQuery(d.mcpUrl.href, pkce().challenge).path,
    );
    const elsewhere = browserOf(d.origin, d.signIn('p_ada'));
    expect((await elsewhere.get(consentPath)).status).toBe(403);

    const denied = await answerConsent(browser, consentPath, { decision: 'deny' });
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(await d.stores.audit.list({ action: 'token.create', limit: 50 })).toEqual([]);
  });

  it('serves its metadata: the authorization server (RFC 8414) and the protected resource (RFC 9728)', async () => {
    const d = await desk(kind);
    const as = (await (
      await fetch(new URL('/.well-known/oauth-authorization-server', d.address))
    ).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: d.origin,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.registration_endpoint).toBeUndefined();
    const resource = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', d.address));
    expect(await resource.json()).toMatchObject({
      resource: d.mcpUrl.href,
      authorization_servers: [d.origin],
      scopes_supported: ['tickets.read'],
    });
  });
});

describe('createAuthorizationServer', () => {
  const base = () => {
    const stores = memoryStores();
    return {
      store: stores.authorization,
      credentialStore: stores.credentials,
      credentials: {} as never,
      scopes: DESK_SCOPES,
      origin: 'https://desk.example',
    };
  };

  it('refuses a scopes table it cannot serve and bad paths, before anything runs', () => {
    const refusals = [
      { scopes: { ...DESK_SCOPES, rights: [] } },
      { scopes: { ...DESK_SCOPES, rights: ['tickets read'] } },
      {
        scopes: { ...DESK_SCOPES, rights: ['offline_access'], words: { offline_access: 'x' }, starting: [] },
      },
      { scopes: { ...DESK_SCOPES, words: { 'tickets.read': 'x' } } },
      { scopes: { ...DESK_SCOPES, starting: ['tickets.delete'] } },
      { resourcePath: 'mcp' },
      { consoleBasePath: '/console/' },
      { lifetimes: { accessTokenSeconds: 1.5 } },
    ];
    for (const refusal of refusals) {
      expect(
        () => createAuthorizationServer({ ...base(), ...refusal } as never),
        JSON.stringify(refusal),
      ).toThrow(ConfigurationError);
    }
  });

  it('refuses an origin with a path when it is first used, and names its paths from the console’s base path', () => {
    const bad = createAuthorizationServer({ ...base(), origin: 'https://desk.example/app' });
    expect(() => bad.resource()).toThrow(ConfigurationError);
    const server = createAuthorizationServer({
      ...base(),
      consoleBasePath: '/console',
      resourcePath: '/api/mcp',
    });
    expect(server.resource()).toBe('https://desk.example/api/mcp');
    expect(server.handles('/oauth/token')).toBe(true);
    expect(server.handles('/.well-known/oauth-authorization-server')).toBe(true);
    expect(server.handles('/console/oauth/consent/abc')).toBe(false);
    expect(server.handles('/mcp')).toBe(false);
  });
});
