/**
 * An identity provider of the team's own, independent of Gatehouse: an
 * oidc-provider instance on a loopback port that signs in people through
 * the authorization code flow with PKCE and issues, per resource, JWT access
 * tokens (RFC 9068) or opaque ones it answers for at its introspection
 * endpoint. Its people carry their workspace in an `org_id` claim. It can
 * stop and start again on the same port with other signing keys (rotation).
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export const JWT_RESOURCE = 'https://desk.example/mcp';
export const OTHER_RESOURCE = 'https://other.example/mcp';
export const OPAQUE_RESOURCE = 'https://opaque.example/mcp';
export const SCOPES = 'tickets:read tickets:write';
const REDIRECT = 'http://127.0.0.1/callback';
/** The MCP server's own client at the provider, for introspection. */
export const INTROSPECTOR = { id: 'desk-mcp', secret: 'introspector-secret-0123456789' };

/** A private signing key, with its key id. */
export async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

export interface IdentityProvider extends AsyncDisposable {
  readonly issuer: string;
  readonly jwksUrl: string;
  readonly introspectionUrl: string;
  readonly port: number;
  /** A person's access token for `resource` through the code flow, as the client `clientId`. */
  tokenFor(
    person: string,
    options?: { clientId?: string; scope?: string; resource?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

const cookiesOf = (response: Response): string[] =>
  response.headers.getSetCookie().map((c) => c.split(';')[0]!);

/** Starts the provider on `port` (default a free one) signing with `keys` (the first signs; default a fresh one). */
export async function identityProvider(
  options: {
    readonly keys?: readonly JWK[];
    readonly port?: number;
    /** Resources whose tokens are opaque (introspected); default only {@link OPAQUE_RESOURCE}. */
    readonly opaque?: readonly string[];
  } = {},
): Promise<IdentityProvider> {
  const keys = options.keys ?? [await signingKey('k1')];
  const opaque = new Set(options.opaque ?? [OPAQUE_RESOURCE]);
  const tenants: Readonly<Record<string, string | string[]>> = {
    p_ada: 'ws_acme',
    p_cy: ['ws_acme', 'ws_bolt'],
  };
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => handle(req, res));
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const client = (client_id: string) => ({
    client_id,
    token_endpoint_auth_method: 'none' as const,
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code'],
    response_types: ['code' as const],
  });
  const provider = new Provider(issuer, {
    clients: [
      client('desk-app'),
      client('other-app'),
      {
        client_id: INTROSPECTOR.id,
        client_secret: INTROSPECTOR.secret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: { keys: [...keys] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, Interaction: 600, Session: 600 },
    features: {
      devInteractions: { enabled: false },
      // only the MCP server's own client may ask about tokens
      introspection: { enabled: true, allowedPolicy: (_ctx, caller) => caller.clientId === INTROSPECTOR.id },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => JWT_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: SCOPES,
          audience: resource,
          ...(opaque.has(resource)
            ? { accessTokenFormat: 'opaque' as const }
            : { accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: 'RS256' as const } } }),
        }),
      },
    },
    extraTokenClaims: (_ctx, token) =>
      'accountId' in token && typeof token.accountId === 'string' ? { org_id: tenants[token.accountId] } : {},
  });
  provider.on('server_error', () => undefined);
  const callback = provider.callback();
  handle = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    // the login and consent screens: whoever `login_hint` names signs in and grants what was asked
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const accountId = String(details.params.login_hint);
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addResourceScope(String(details.params.resource), String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } });
    })().catch(() => res.writeHead(500).end());
  };

  async function tokenFor(
    person: string,
    { clientId = 'desk-app', scope = 'tickets:read', resource = JWT_RESOURCE } = {},
  ): Promise<string> {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope,
      resource,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      login_hint: person,
    });
    const jar: string[] = [];
    let location = `${issuer}/auth?${query}`;
    // /auth → /interaction/:uid → /auth/:uid → the client's callback with the code
    for (let hop = 0; hop < 5 && !location.startsWith(REDIRECT); hop++) {
      const response = await fetch(new URL(location, issuer), {
        redirect: 'manual',
        headers: { cookie: jar.join('; ') },
      });
      jar.push(...cookiesOf(response));
      location = response.headers.get('location') ?? '';
      if (!location) throw new Error(`the provider answered ${response.status}: ${await response.text()}`);
    }
    const code = new URL(location).searchParams.get('code');
    if (!code) throw new Error(`no code in ${location}`);
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
        resource,
      }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`no access token: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    introspectionUrl: `${issuer}/token/introspection`,
    port,
    tokenFor,
    close,
    [Symbol.asyncDispose]: close,
  };
}
