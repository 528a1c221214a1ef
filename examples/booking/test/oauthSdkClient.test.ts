/**
 * The official SDK v2 client's OAuth client provider against the booking
 * product end to end: a 401 at /mcp, discovery of the protected-resource and
 * authorization-server metadata, dynamic registration (enabled here), the
 * authorization URL opened in a "browser" that signs in and consents on the
 * product's pages, `finishAuth` with code and iss, and tools/list and a
 * read tool over the token.
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
import { consent, REDIRECT_URI, reachConsent, sceneOf } from './fixtures/oauthFlow.js';
import { seededTemplate, testApp } from './fixtures/testApp.js';

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
    } finally {
      await client.close();
    }
    expect(await t.count('gatehouse_credentials', "client_label = 'OAuth: SDK Desktop'")).toBe(1);
  });
});
