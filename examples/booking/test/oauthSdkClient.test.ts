/**
 * The official SDK v2 client's OAuth client provider against the booking
 * product end to end: a 401 at /mcp, discovery of the protected-resource and
 * authorization-server metadata, dynamic registration (enabled here), the
 * authorization URL opened in a "browser" that signs in and consents on the
 * product's pages, `finishAuth` with code and iss, and tools/list and a
 * read tool over the token; then the person's role drops and the same token
 * loses the write tool on its next request, and revoking the grant on the
 * tokens page makes the next request answer 401.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliActor } from '../src/cli/commands.js';
import { consent, REDIRECT_URI, reachConsent, sceneOf } from './fixtures/oauthFlow.js';
import { rawClient } from './fixtures/raw.js';
import { berlin, seededTemplate, testApp } from './fixtures/testApp.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-sdk-')));
});

/** An in-memory OAuth client provider, as a desktop host would keep one. */
class MemoryOAuthProvider implements OAuthClientProvider {
  information: StoredOAuthClientInformation | undefined;
  stored: StoredOAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK Desktop',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: StoredOAuthClientInformation) {
    this.information = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('the SDK v2 client with an OAuth client provider', () => {
  it('discovers, registers, authorizes with PKCE after the person consents, then lists and calls tools', async () => {
    await using t = await testApp({ template, oauth: { dynamicRegistration: true } });
    const scene = await sceneOf(t);
    const provider = new MemoryOAuthProvider();
    const first = new Client({ name: 'sdk-desktop', version: '1.0.0' });
    await expect(
      first.connect(new StreamableHTTPClientTransport(scene.mcpUrl, { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const url = provider.authorizationUrl;
    expect(url?.origin).toBe(scene.origin);
    expect(url?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url?.searchParams.get('resource')).toBe(scene.mcpUrl.href);

    const consentPath = await reachConsent(scene, `${url?.pathname}${url?.search}`);
    const back = await consent(scene, consentPath, {
      decision: 'grant',
      rights: ['bookings.read', 'customers.read'],
    });
    expect(back.searchParams.get('iss')).toBe(scene.origin);
    const transport = new StreamableHTTPClientTransport(scene.mcpUrl, { authProvider: provider });
    await transport.finishAuth(back.searchParams);
    expect(provider.stored?.access_token).toBeTruthy();

    const client = new Client({ name: 'sdk-desktop', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('find_customers');
      const result = await client.callTool({ name: 'find_customers', arguments: { query: 'Alan' } });
      expect(result.isError).toBeFalsy();
      expect(tools.map((tool) => tool.name)).toContain('create_booking');
    } finally {
      await client.close();
    }

    // create_booking is within Olivia's rights, not the token's: 403 insufficient_scope, and the SDK steps up
    const booking = {
      name: 'create_booking',
      arguments: {
        customer_id: 'cu_alan',
        starts_at: berlin(15, '08:00'),
        duration_minutes: 30,
        price: { minor_units: 4500, currency: 'EUR' },
      },
    };
    const stepUp = new Client({ name: 'sdk-desktop', version: '1.0.0' });
    await stepUp.connect(new StreamableHTTPClientTransport(scene.mcpUrl, { authProvider: provider }));
    provider.authorizationUrl = undefined;
    await expect(stepUp.callTool(booking)).rejects.toThrow();
    await stepUp.close();
    const wider = provider.authorizationUrl as URL | undefined;
    expect(wider?.searchParams.get('scope')?.split(' ')).toContain('bookings.write');
    const widerPath = await reachConsent(scene, `${wider?.pathname}${wider?.search}`);
    const widerBack = await consent(scene, widerPath, {
      decision: 'grant',
      rights: ['bookings.read', 'customers.read', 'bookings.write'],
    });
    const widerTransport = new StreamableHTTPClientTransport(scene.mcpUrl, { authProvider: provider });
    await widerTransport.finishAuth(widerBack.searchParams);
    const writer = new Client({ name: 'sdk-desktop', version: '1.0.0' });
    await writer.connect(widerTransport);
    try {
      const bookings = await t.count('bookings');
      expect((await writer.callTool(booking)).isError).toBeFalsy();
      expect(await t.count('bookings')).toBe(bookings + 1);

      // the person's role drops: the same token loses the right on its next request (I4)
      const olivia = await t.app.people.get('ws_acme', 'p_olivia');
      await t.app.people.setRole(olivia!, 'viewer', cliActor());
      const after = await writer.listTools();
      expect(after.tools.map((tool) => tool.name)).not.toContain('create_booking');
      expect(after.tools.map((tool) => tool.name)).toContain('find_customers');
      const refused = await writer.callTool({
        ...booking,
        arguments: { ...booking.arguments, starts_at: berlin(16, '08:00') },
      });
      expect(refused.isError).toBe(true);
      expect(await t.count('bookings')).toBe(bookings + 1);

      // revoking the grant on the tokens page: the next request answers 401
      const rows = await t.rows<{ id: string }>(
        "SELECT id FROM gatehouse_credentials WHERE client_label = 'OAuth: SDK Desktop' ORDER BY created_at DESC",
      );
      const row = rows[0];
      await t.app.people.setRole(olivia!, 'owner', cliActor());
      expect((await scene.browser.post(`/tokens/${row?.id}/revoke`)).status).toBe(303);
      const revoked = await rawClient(scene.mcpUrl, String(provider.stored?.access_token)).listTools();
      expect(revoked.status).toBe(401);
      await expect(writer.listTools()).rejects.toThrow();
      expect(await t.count('gatehouse_audit', "action = 'token.revoke' AND channel = 'admin'")).toBe(1);
    } finally {
      await writer.close();
    }
    expect(await t.count('gatehouse_credentials', "client_label = 'OAuth: SDK Desktop'")).toBe(2);
  });
});
