import type { IncomingMessage } from 'node:http';
import type { Credentials, VerifiedAccessToken } from '@gatehousejs/access';
import type { AuthorizationStore, CredentialStore } from '@gatehousejs/core';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import type { Right } from '../domain/model.js';
import { providerErrorPage } from './errorPage.js';
import { type KeySources, loadAuthorizationKeys } from './keys.js';
import { metadataHostsFromEnv, type ProviderFetch } from './metadataFetch.js';
import { runNodeHandler } from './nodeBridge.js';
import { STARTING_SCOPES } from './resourceMetadata.js';
import { rightsOfScopes } from './scopes.js';
import { withoutProviderSession, withoutProviderSessionCookies } from './sessionCookies.js';

/** The authorization server's settings (from the environment by default, see {@link oauthSettingsFromEnv}). */
export interface OAuthSettings extends KeySources {
  /** Dynamic client registration for clients without a metadata document; default off. */
  readonly dynamicRegistration?: boolean;
  /** Fetch client metadata documents from private and loopback addresses too; default no. */
  readonly allowPrivateMetadataFetch?: boolean;
  /**
   * Hosts (`host` or `host:port`; a bare host means port 443) whose client
   * metadata documents may be fetched although they resolve to a private or
   * loopback address, matched by the `client_id` URL's host as written; every
   * other host keeps the provider's guard. Default none.
   */
  readonly metadataHosts?: readonly string[];
  /**
   * Replaces the provider's outgoing fetch (client metadata documents), for
   * tests that serve a document without a network; the special-use address
   * guard is then the replacement's business. Never set from the environment.
   */
  readonly fetch?: ProviderFetch;
}

/**
 * Reads `BOOKING_OAUTH_JWKS`, `BOOKING_OAUTH_COOKIE_KEYS`,
 * `BOOKING_OAUTH_DYNAMIC_REGISTRATION=1`, `BOOKING_OAUTH_PRIVATE_METADATA_FETCH=1`
 * and `BOOKING_OAUTH_METADATA_HOSTS` (comma-separated `host[:port]`); a bad
 * host list throws a usage error naming the variable.
 */
export function oauthSettingsFromEnv(env: NodeJS.ProcessEnv): OAuthSettings {
  const metadataHosts = metadataHostsFromEnv(env.BOOKING_OAUTH_METADATA_HOSTS);
  return {
    jwks: env.BOOKING_OAUTH_JWKS || undefined,
    cookieKeys: env.BOOKING_OAUTH_COOKIE_KEYS || undefined,
    dynamicRegistration: env.BOOKING_OAUTH_DYNAMIC_REGISTRATION === '1',
    allowPrivateMetadataFetch: env.BOOKING_OAUTH_PRIVATE_METADATA_FETCH === '1',
    ...(metadataHosts ? { metadataHosts } : {}),
  };
}

/** What the authorization server needs from the product. */
export interface AuthorizationServerDeps {
  /** The stores' AuthorizationStore: the provider's records and keys, shared by replicas. */
  readonly store: AuthorizationStore;
  readonly credentials: Credentials<Right>;
  readonly credentialStore: CredentialStore;
  /** The product's public origin, known once the server listens. */
  readonly origin: () => string;
  readonly clock: () => Date;
  readonly logger: Logger;
  readonly settings: OAuthSettings;
}

/** The booking product's OAuth authorization server. */
export interface AuthorizationServer {
  /** Whether a request path is the provider's (`/oauth/…` but the consent pages, and its discovery documents). */
  handles(pathname: string): boolean;
  /** Answers one of {@link handles}' requests. */
  fetch(request: Request, incoming?: IncomingMessage): Promise<Response>;
  /** The provider, built on first use (the issuer is the public origin then). */
  provider(): Promise<Provider>;
  /** The resource its tokens are for: the MCP endpoint's URL. */
  resource(): string;
  /**
   * Checks an access token for the MCP endpoint: issued here and stored (so
   * not revoked, not expired), its grant a Gatehouse credential of the same
   * person, neither revoked nor expired; the token's scopes cut to the
   * credential's rights.
   * Undefined for anything else.
   */
  verify(token: string): Promise<VerifiedAccessToken | undefined>;
  /**
   * Deletes a grant and everything issued under it (codes, access and
   * refresh tokens): called when its credential is revoked elsewhere (the
   * tokens page, the CLI), so a refresh fails at once too.
   */
  forgetGrant(grantId: string, unit?: unknown): Promise<void>;
}

/**
 * An authorization request that names no scope asks for the resource's
 * starting scopes (RFC 6749 §3.3: the server's documented default), so the
 * person is asked for them rather than the request failing empty.
 */
function withDefaultScope(request: Request): Request {
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.pathname !== '/oauth/authorize' || url.searchParams.get('scope')) {
    return request;
  }
  url.searchParams.set('scope', STARTING_SCOPES.join(' '));
  return new Request(url, { method: 'GET', headers: request.headers });
}

/**
 * A dynamic registration registers no scope limit: the `scope` a client
 * names when it registers (the SDK sends the scopes it knows then) would
 * otherwise cap every later authorization request, so a client could never
 * step up to a right it learns it needs from a 403 `insufficient_scope`
 * (it does not register again). What a token may do is decided by the
 * person's consent, capped by their live rights, not by the registration.
 * Any other body passes unchanged (the provider judges it).
 */
function withoutRegisteredScope(request: Request, body: Buffer): Buffer {
  if (request.method !== 'POST' || new URL(request.url).pathname !== '/oauth/register') return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !('scope' in parsed))
    return body;
  const { scope: _scope, ...rest } = parsed as Record<string, unknown>;
  return Buffer.from(JSON.stringify(rest));
}

const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const DISCOVERY = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);

/**
 * The authorization server beside the pages: oidc-provider (see
 * {@link createProvider}) built lazily on the product's public origin, its
 * keys from settings or the database, a revoked grant (reused refresh token,
 * revocation request) revoking its Gatehouse credential with an audit row.
 */
export function createAuthorizationServer(deps: AuthorizationServerDeps): AuthorizationServer {
  let building: Promise<Provider> | undefined;
  const resource = () => new URL('/mcp', `${deps.origin()}/`).href;
  const build = async (): Promise<Provider> => {
    const now = () => deps.clock().getTime();
    const keys = await loadAuthorizationKeys(deps.store, deps.settings, now());
    // loaded on first use only: oidc-provider warns on stderr when imported under Node 20
    const { createProvider } = await import('./provider.js');
    return createProvider({
      issuer: deps.origin(),
      resource: resource(),
      keys,
      store: deps.store,
      now,
      errorPage: providerErrorPage,
      ...(deps.settings.dynamicRegistration ? { dynamicRegistration: true } : {}),
      ...(deps.settings.allowPrivateMetadataFetch ? { allowPrivateMetadataFetch: true } : {}),
      ...(deps.settings.metadataHosts ? { metadataHosts: deps.settings.metadataHosts } : {}),
      ...(deps.settings.fetch ? { fetch: deps.settings.fetch } : {}),
      onServerError: (error) => {
        const type = error instanceof Error ? error.name : typeof error;
        deps.logger.error({ event: 'oauth', error_type: type }, 'authorization server error');
      },
      onGrantRevoked: (grantId) => {
        deps.credentials.revoke(grantId, { actorId: 'oauth', channel: 'oauth' }).catch((error: unknown) => {
          const type = error instanceof Error ? error.name : typeof error;
          deps.logger.error({ event: 'oauth', error_type: type }, 'revoking a grant credential failed');
        });
      },
    });
  };
  const provider = (): Promise<Provider> => {
    building ??= build().catch((error: unknown) => {
      building = undefined;
      throw error;
    });
    return building;
  };
  return {
    handles: (pathname) =>
      DISCOVERY.has(pathname) || (pathname.startsWith('/oauth/') && !pathname.startsWith('/oauth/consent/')),
    async fetch(incomingRequest, incoming) {
      const request = withDefaultScope(withoutProviderSession(incomingRequest));
      const encrypted = new URL(deps.origin()).protocol === 'https:';
      const handler = async () => (await provider()).callback();
      const socket = { encrypted, remoteAddress: incoming?.socket?.remoteAddress };
      const response = await runNodeHandler(handler, request, socket, { rewrite: withoutRegisteredScope });
      return withoutProviderSessionCookies(response);
    },
    provider,
    resource,
    async forgetGrant(grantId, unit) {
      await deps.store.forgetGrant(grantId, unit);
    },
    async verify(token) {
      // the provider's opaque tokens are 43 base64url characters: anything else is refused before it is built
      if (!OPAQUE_TOKEN.test(token)) return undefined;
      const stored = await (await provider()).AccessToken.find(token);
      if (!stored?.grantId || !stored.accountId) return undefined;
      const credential = await deps.credentialStore.findById(stored.grantId);
      if (!credential || credential.revokedAt !== null || credential.creatorId !== stored.accountId)
        return undefined;
      if (credential.expiresAt !== null && credential.expiresAt <= deps.clock().getTime()) return undefined;
      const granted = new Set<string>(credential.rights);
      return {
        audience: typeof stored.aud === 'string' ? stored.aud : [...(stored.aud ?? [])],
        subject: stored.accountId,
        tenantIds: credential.tenantIds,
        scopes: rightsOfScopes((stored.scope ?? '').split(' ')).filter((r) => granted.has(r)),
        expiresAt: (stored.exp ?? 0) * 1000,
        grantId: credential.id,
        clientLabel: credential.clientLabel,
      };
    },
  };
}
