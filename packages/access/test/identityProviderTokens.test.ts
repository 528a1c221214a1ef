/**
 * A team's own identity provider: `jwtAccessTokens` and
 * `introspectedAccessTokens` against an independent oidc-provider instance
 * started here, issuing tokens through the code flow. Signature, issuer,
 * audience, expiry and type checked; the grant id stable across tokens; the
 * tenant from a claim or from the request, checked live (I3, I4); keys
 * rotated; the provider out of reach is a 503, never a 401.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthDecision,
  ConfigurationError,
  createGatehouse,
  isOutage,
  MemoryAuditStore,
  MemoryReplayStore,
  separateCommits,
} from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  introspectedAccessTokens,
  jwtAccessTokens,
  oauthAuthenticator,
  type PeopleSource,
  type Standing,
} from '../src/index.js';
import { jwtAuthenticator } from './examples/identityProvider.js';
import { opaqueAuthenticator } from './examples/opaqueTokens.js';
import {
  type IdentityProvider,
  INTROSPECTOR,
  identityProvider,
  JWT_RESOURCE,
  OPAQUE_RESOURCE,
  OTHER_RESOURCE,
  signingKey,
} from './identityProvider.js';

const RIGHTS = ['tickets.read', 'tickets.write'] as const;
type Right = (typeof RIGHTS)[number];
const SCOPES = { 'tickets:read': ['tickets.read'], 'tickets:write': ['tickets.write'] } as const;

/** Who works where now; tests change it. */
class People implements PeopleSource<Right> {
  readonly standings = new Map<string, Standing<Right>>([
    ['ws_acme/p_ada', { active: true, rights: new Set<Right>(RIGHTS) }],
    ['ws_acme/p_cy', { active: true, rights: new Set<Right>(['tickets.read']) }],
    ['ws_bolt/p_cy', { active: true, rights: new Set<Right>(RIGHTS) }],
  ]);
  async current(tenantId: string, personId: string) {
    return this.standings.get(`${tenantId}/${personId}`);
  }
}

const connectionOf = <T extends string>(decision: AuthDecision<T>) => {
  if (!decision.ok) throw new Error(`refused: ${decision.status} ${decision.reason}`);
  return decision.connection;
};

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('jwtAccessTokens against an identity provider of the team’s own', () => {
  let idp: IdentityProvider;
  beforeAll(async () => {
    idp = await identityProvider();
  });
  afterAll(() => idp?.close());

  const verifierOf = (overrides: Partial<Parameters<typeof jwtAccessTokens>[0]> = {}) =>
    jwtAccessTokens({
      issuer: idp.issuer,
      audience: JWT_RESOURCE,
      jwks: idp.jwksUrl,
      tenantClaim: 'org_id',
      ...overrides,
    });
  const authenticatorOf = (verify = verifierOf(), people = new People()) =>
    oauthAuthenticator<Right>({ verify, audience: JWT_RESOURCE, people, scopes: SCOPES });

  it('accepts a person’s token: tenant from its claim, rights from its scopes cut live, one grant id per person and client', async () => {
    const people = new People();
    const authenticate = jwtAuthenticator(idp.issuer, people);
    const first = await idp.tokenFor('p_ada', { scope: 'tickets:read' });
    const again = await idp.tokenFor('p_ada', { scope: 'tickets:read tickets:write' });
    const otherClient = await idp.tokenFor('p_ada', { clientId: 'other-app' });
    expect(decodeJwt(first).jti).not.toBe(decodeJwt(again).jti);

    const a = connectionOf(await authenticate({ token: first, transportTenant: undefined }));
    expect(a).toMatchObject({
      tenantId: 'ws_acme',
      creatorId: 'p_ada',
      clientName: expect.stringContaining('desk-app'),
    });
    expect([...a.rights]).toEqual(['tickets.read']);
    const b = connectionOf(await authenticate({ token: again, transportTenant: undefined }));
    expect([...b.rights].sort()).toEqual(['tickets.read', 'tickets.write']);
    expect(b.connectionId).toBe(a.connectionId);
    const c = connectionOf(await authenticate({ token: otherClient, transportTenant: undefined }));
    expect(c.connectionId).not.toBe(a.connectionId);

    // the person loses the write right: the same token carries it no more (I4)
    people.standings.set('ws_acme/p_ada', { active: true, rights: new Set<Right>(['tickets.read']) });
    expect([
      ...connectionOf(await authenticate({ token: again, transportTenant: undefined })).rights,
    ]).toEqual(['tickets.read']);
    people.standings.set('ws_acme/p_ada', { active: false, rights: new Set<Right>(RIGHTS) });
    expect(await authenticate({ token: again, transportTenant: undefined })).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('refuses a token for another audience, of another issuer, expired, or altered', async () => {
    const authenticate = authenticatorOf();
    const token = await idp.tokenFor('p_ada');
    expect((await authenticate({ token, transportTenant: undefined })).ok).toBe(true);

    const elsewhere = await idp.tokenFor('p_ada', { resource: OTHER_RESOURCE });
    expect(await authenticate({ token: elsewhere, transportTenant: undefined })).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(await verifierOf({ issuer: 'https://id.other.example' })(token)).toBeUndefined();
    const later = new Date((decodeJwt(token).exp ?? 0) * 1000 + 60_000);
    expect(await verifierOf({ clock: () => later })(token)).toBeUndefined();
    // within the 30 s skew it still passes
    const justAfter = new Date((decodeJwt(token).exp ?? 0) * 1000 + 10_000);
    expect(await verifierOf({ clock: () => justAfter })(token)).toBeDefined();
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, org_id: 'ws_bolt' })).toString('base64url');
    expect(await verifierOf()(`${header}.${forged}.${signature}`)).toBeUndefined();
    expect(await verifierOf()('not-a-jwt')).toBeUndefined();
  });

  it('takes only access tokens: the same claims signed as an ID token (typ JWT) are refused', async () => {
    const key = await signingKey('own');
    const keys = {
      keys: [
        { ...key, d: undefined, p: undefined, q: undefined, dp: undefined, dq: undefined, qi: undefined },
      ],
    };
    const verify = jwtAccessTokens({
      issuer: 'https://id.desk.example',
      audience: JWT_RESOURCE,
      jwks: keys,
      tenantClaim: 'org_id',
    });
    const sign = (typ: string) =>
      importJWK(key, 'RS256').then((privateKey) =>
        new SignJWT({ org_id: 'ws_acme', client_id: 'desk-app', scope: 'tickets:read' })
          .setProtectedHeader({ alg: 'RS256', typ, kid: 'own' })
          .setIssuer('https://id.desk.example')
          .setAudience(JWT_RESOURCE)
          .setSubject('p_ada')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(privateKey),
      );
    expect(await verify(await sign('at+jwt'))).toMatchObject({ subject: 'p_ada', tenantIds: ['ws_acme'] });
    expect(await verify(await sign('JWT'))).toBeUndefined();
  });

  it('takes the tenant from the request when the token names none, only where the person works now', async () => {
    const authenticate = authenticatorOf(verifierOf({ tenantClaim: undefined }));
    const token = await idp.tokenFor('p_cy');
    expect(connectionOf(await authenticate({ token, transportTenant: 'ws_bolt' })).tenantId).toBe('ws_bolt');
    expect(await authenticate({ token, transportTenant: 'ws_other' })).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await authenticate({ token, transportTenant: undefined })).toMatchObject({
      ok: false,
      status: 403,
    });
    // with the claim, a token for two workspaces must be told which one, and only those two
    const named = authenticatorOf();
    expect(await named({ token, transportTenant: undefined })).toMatchObject({ ok: false, status: 403 });
    expect(connectionOf(await named({ token, transportTenant: 'ws_acme' })).tenantId).toBe('ws_acme');
    expect(await named({ token, transportTenant: 'ws_other' })).toMatchObject({ ok: false, status: 403 });
  });

  it('follows a key rotation: a token of the new key passes at once, the old key’s while the provider still lists it', async () => {
    const k1 = await signingKey('k1');
    const before = await identityProvider({ keys: [k1] });
    const port = before.port;
    const verify = jwtAccessTokens({
      issuer: before.issuer,
      audience: JWT_RESOURCE,
      jwks: before.jwksUrl,
      tenantClaim: 'org_id',
      jwksCooldownMs: 0,
    });
    const old = await before.tokenFor('p_ada');
    expect(await verify(old)).toBeDefined();
    await before.close();

    await using after = await identityProvider({ keys: [await signingKey('k2'), k1], port });
    const fresh = await after.tokenFor('p_ada');
    expect(JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString()).kid).toBe('k2');
    expect(await verify(fresh)).toMatchObject({ subject: 'p_ada' });
    expect(await verify(old)).toMatchObject({ subject: 'p_ada' });
  });

  it('answers 503 with Retry-After, never 401, when the keys are out of reach; a good token runs the tool in its tenant', async () => {
    const runs: string[] = [];
    const gh = createGatehouse({ rights: RIGHTS, services: () => ({}) });
    const tool = gh.defineTool({
      name: 'count_tickets',
      description: 'Counts the open tickets of this workspace.',
      effect: 'read',
      requires: ['tickets.read'],
      input: z.object({}),
      presenter: {
        outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
        present: (count: number) => ({ count }),
      },
      run: ({ connection }) => {
        runs.push(connection.tenantId);
        return 3;
      },
    });
    const serve = (verify: ReturnType<typeof jwtAccessTokens>) =>
      listen(
        gh.createServer(
          withGuards({
            name: 'desk',
            version: '1.0.0',
            tools: [tool],
            authenticate: authenticatorOf(verify),
            audit: new MemoryAuditStore(),
            replay: { store: new MemoryReplayStore() },
            unitOfWork: separateCommits(),
          }),
        ),
      );
    const call = (url: URL, token: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'count_tickets', arguments: {} },
        }),
      });
    const token = await idp.tokenFor('p_ada');

    await using down = await serve(verifierOf({ jwks: `http://127.0.0.1:${await closedPort()}/jwks` }));
    const refused = await call(down.url, token);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(runs).toEqual([]);

    await using up = await serve(verifierOf());
    const answered = await call(up.url, token);
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain('"count":3');
    expect(runs).toEqual(['ws_acme']);
    expect((await call(up.url, `${token}x`)).status).toBe(401);
    expect(runs).toEqual(['ws_acme']);
  });

  it('refuses options that would weaken it', () => {
    const base = { issuer: 'https://id.example', audience: JWT_RESOURCE, jwks: 'https://id.example/jwks' };
    expect(() => jwtAccessTokens({ ...base, algorithms: ['HS256'] })).toThrow(ConfigurationError);
    expect(() => jwtAccessTokens({ ...base, algorithms: ['none'] })).toThrow(ConfigurationError);
    expect(() => jwtAccessTokens({ ...base, jwks: 'http://id.example/jwks' })).toThrow(/https/);
    expect(() => jwtAccessTokens({ ...base, audience: '' })).toThrow(/audience/);
    expect(() => jwtAccessTokens({ ...base, clockToleranceSeconds: 3600 })).toThrow(/clockTolerance/);
  });
});

describe('introspectedAccessTokens against the same provider (opaque tokens)', () => {
  let idp: IdentityProvider;
  beforeAll(async () => {
    // this server's resource gets opaque tokens here; another resource still gets JWTs
    idp = await identityProvider({ opaque: [JWT_RESOURCE, OPAQUE_RESOURCE] });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await idp?.close();
  });

  const introspectorOf = (overrides: Partial<Parameters<typeof introspectedAccessTokens>[0]> = {}) =>
    introspectedAccessTokens({
      endpoint: idp.introspectionUrl,
      clientId: INTROSPECTOR.id,
      clientSecret: INTROSPECTOR.secret,
      issuer: idp.issuer,
      audience: JWT_RESOURCE,
      tenantClaim: 'org_id',
      ...overrides,
    });

  it('accepts an opaque token the provider says is active, with the grant id the JWT route gives', async () => {
    vi.stubEnv('DESK_INTROSPECTION_SECRET', INTROSPECTOR.secret);
    const authenticate = opaqueAuthenticator(idp.issuer, new People());
    const token = await idp.tokenFor('p_ada', { scope: 'tickets:write' });
    expect(token.split('.')).toHaveLength(1);
    const connection = connectionOf(await authenticate({ token, transportTenant: undefined }));
    expect(connection).toMatchObject({ tenantId: 'ws_acme', creatorId: 'p_ada' });
    expect([...connection.rights]).toEqual(['tickets.write']);
    const jwt = await idp.tokenFor('p_ada', { resource: OTHER_RESOURCE });
    const viaJwt = await jwtAccessTokens({ issuer: idp.issuer, audience: OTHER_RESOURCE, jwks: idp.jwksUrl })(
      jwt,
    );
    expect(viaJwt?.grantId).toBe(connection.connectionId);
  });

  it('refuses a made-up token, a JWT, another audience; a wrong secret or an endpoint down is an outage', async () => {
    expect(await introspectorOf()('made-up-token')).toBeUndefined();
    expect(await introspectorOf()(await idp.tokenFor('p_ada', { resource: OTHER_RESOURCE }))).toBeUndefined();
    const elsewhere = await idp.tokenFor('p_ada', { resource: OPAQUE_RESOURCE });
    expect(await introspectorOf()(elsewhere)).toBeUndefined();
    const token = await idp.tokenFor('p_ada');
    expect(await introspectorOf()(token)).toMatchObject({ subject: 'p_ada' });
    expect(await introspectorOf({ issuer: 'https://id.other.example' })(token)).toBeUndefined();
    const wrongSecret = await introspectorOf({ clientSecret: 'wrong' })(token).catch((e: unknown) => e);
    expect(isOutage(wrongSecret)).toBe(true);
    expect(String((wrongSecret as Error).message)).not.toContain('wrong');
    const down = await introspectorOf({ endpoint: `http://127.0.0.1:${await closedPort()}/introspect` })(
      token,
    ).catch((e: unknown) => e);
    expect(isOutage(down)).toBe(true);
    expect(() => introspectorOf({ endpoint: 'http://id.example/introspect' })).toThrow(/https/);
  });
});
