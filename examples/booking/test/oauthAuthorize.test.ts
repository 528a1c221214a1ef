/**
 * The booking product as an OAuth 2.1 authorization server, at the HTTP
 * level: its RFC 8414 metadata, and the authorization requests it refuses
 * before anyone is asked (no PKCE, `plain`, an unknown resource, an unlisted
 * redirect URI, dynamic registration off by default, a metadata-document
 * client on a loopback address).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededTemplate, type TestApp, testApp } from './fixtures/testApp.js';

let template: string;
beforeAll(async () => {
  template = await seededTemplate(mkdtempSync(join(tmpdir(), 'oauth-tpl-')));
});

/** A fresh PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function served(t: TestApp): Promise<string> {
  return (await t.serve()).mcpUrl.origin;
}

describe('the authorization server metadata (RFC 8414)', () => {
  it('names the issuer, the endpoints, code + S256 only, no secrets for public clients, iss in responses', async () => {
    await using t = await testApp({ template });
    const origin = await served(t);
    const response = await fetch(`${origin}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token']),
    );
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['bookings.read', 'offline_access']));
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    expect(metadata).not.toHaveProperty('registration_endpoint');
    expect(metadata).not.toHaveProperty('userinfo_endpoint');
    expect(metadata).not.toHaveProperty('end_session_endpoint');
    const stored = await t.rows<{ name: string }>('SELECT name FROM gatehouse_oauth_keys ORDER BY name');
    expect(stored.map((r) => r.name)).toEqual(['cookie_keys', 'jwks']);
    const jwks = (await (await fetch(`${origin}/oauth/jwks`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('serves dynamic registration only when enabled', async () => {
    await using t = await testApp({ template, oauth: { dynamicRegistration: true } });
    const origin = await served(t);
    const metadata = (await (
      await fetch(`${origin}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.registration_endpoint).toBe(`${origin}/oauth/register`);
  });
});

describe('the protected-resource metadata (RFC 9728)', () => {
  it('names the MCP endpoint and this authorization server, at the path-suffixed well-known URL', async () => {
    await using t = await testApp({ template });
    const origin = await served(t);
    const response = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource: `${origin}/mcp`,
      authorization_servers: [origin],
      scopes_supported: ['bookings.read', 'customers.read'],
    });
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
    };
    expect(metadata.issuer).toBe(origin);
  });

  it('with a configured public URL, the 401 challenge names the metadata', async () => {
    await using t = await testApp({ template, publicUrl: 'https://booking.example' });
    const origin = await served(t);
    const refused = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://booking.example/.well-known/oauth-protected-resource/mcp"',
    );
    const document = (await (
      await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as Record<string, unknown>;
    expect(document).toMatchObject({
      resource: 'https://booking.example/mcp',
      authorization_servers: ['https://booking.example'],
    });
  });
});

describe('the authorization server beside the product', () => {
  it('answers 413 to a body over 64 KiB without reaching the provider', async () => {
    await using t = await testApp({ template });
    const origin = await served(t);
    const response = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=authorization_code&code=${'x'.repeat(70 * 1024)}`,
    });
    expect(response.status).toBe(413);
    expect(await t.count('gatehouse_oauth_keys')).toBe(0);
  });

  it('has housekeeping delete expired OAuth rows and keep live ones', async () => {
    await using t = await testApp({ template });
    const now = Date.now();
    await t.exec(
      "INSERT INTO gatehouse_oauth_records (model, id, payload, expires_at) VALUES ('AccessToken', 'old', '{}', ?), ('AccessToken', 'live', '{}', ?)",
      now - 1,
      now + 60_000,
    );
    await t.app.housekeeping.runOnce();
    expect((await t.rows<{ id: string }>('SELECT id FROM gatehouse_oauth_records')).map((r) => r.id)).toEqual(
      ['live'],
    );
  });
});
