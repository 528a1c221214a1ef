import type { Credentials, VerifiedAccessToken } from '@gatehousejs/access';
import {
  type AuthorizationStore,
  ConfigurationError,
  type CredentialStore,
  type Logger,
  type ProtectedResourceOptions,
  silentLogger,
} from '@gatehousejs/core';
import type Provider from 'oidc-provider';
import { type KeySources, loadAuthorizationKeys } from './keys.js';
import { DEFAULT_LIFETIMES, type OAuthLifetimes } from './lifetimes.js';
import { metadataHostsFrom, type ProviderFetch } from './metadataFetch.js';
import { runNodeHandler } from './nodeBridge.js';
import { createProvider } from './provider.js';
import { checkedScopes, type OAuthScopes, rightsOfScopes } from './scopes.js';
import { withoutProviderSession, withoutProviderSessionCookies } from './sessionCookies.js';

/** The authorization server's keys and switches (from the environment with {@link oauthSettingsFromEnv}). */
export interface OAuthSettings extends KeySources {
  /** Dynamic client registration (RFC 7591) for clients without a metadata document; default off. */
  readonly dynamicRegistration?: boolean | undefined;
  /** Fetch client metadata documents from private and loopback addresses too (local development); default no. */
  readonly allowPrivateMetadataFetch?: boolean | undefined;
  /**
   * Hosts (`host` or `host:port`; a bare host means port 443) whose client
   * metadata documents may be fetched although they resolve to a private or
   * loopback address, matched by the `client_id` URL's host as written; every
   * other host keeps the provider's guard. Default none.
   */
  readonly metadataHosts?: readonly string[] | undefined;
  /**
   * Replaces the provider's outgoing fetch (client metadata documents), for
   * tests that serve a document without a network; the special-use address
   * guard is then the replacement's business. Never set from the environment.
   */
  readonly fetch?: ProviderFetch | undefined;
}

/**
 * Reads the settings from variables named with `prefix` (default
 * `GATEHOUSE_OAUTH_`): `<prefix>JWKS`, `<prefix>COOKIE_KEYS`,
 * `<prefix>DYNAMIC_REGISTRATION=1`, `<prefix>PRIVATE_METADATA_FETCH=1` and
 * `<prefix>METADATA_HOSTS` (comma-separated `host[:port]`). A bad host list
 * throws a `ConfigurationError` naming the variable; bad keys do when the
 * server first loads them.
 */
export function oauthSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  prefix = 'GATEHOUSE_OAUTH_',
): OAuthSettings {
  const name = (suffix: string) => `${prefix}${suffix}`;
  const metadataHosts = metadataHostsFrom(env[name('METADATA_HOSTS')], name('METADATA_HOSTS'));
  return {
    jwks: env[name('JWKS')] || undefined,
    cookieKeys: env[name('COOKIE_KEYS')] || undefined,
    sourceNames: { jwks: name('JWKS'), cookieKeys: name('COOKIE_KEYS') },
    dynamicRegistration: env[name('DYNAMIC_REGISTRATION')] === '1',
    allowPrivateMetadataFetch: env[name('PRIVATE_METADATA_FETCH')] === '1',
    ...(metadataHosts ? { metadataHosts } : {}),
  };
}

/** What {@link createAuthorizationServer} takes from the host. */
export interface AuthorizationServerOptions<TRight extends string = string> {
  /** The stores' `AuthorizationStore`: the provider's records and keys, shared by replicas. */
  readonly store: AuthorizationStore;
  /** The audited credential service of `@gatehousejs/access`: a consent mints one, a revoked grant revokes it. */
  readonly credentials: Credentials<TRight>;
  /** The credential store, where a token's grant is looked up on every request. */
  readonly credentialStore: CredentialStore;
  /** The scopes-to-rights table and the words the consent page shows. */
  readonly scopes: OAuthScopes<TRight>;
  /**
   * The product's public origin (`https://booking.example`), the issuer; a
   * function of it when it is known only once the server listens.
   */
  readonly origin: string | (() => string);
  /** The MCP endpoint's path on that origin: the one resource (audience) tokens are for. Default `/mcp`. */
  readonly resourcePath?: string | undefined;
  /** The resource's name in its metadata (RFC 9728 `resource_name`), shown by some clients. */
  readonly resourceName?: string | undefined;
  /**
   * Where the console that serves {@link consentPages} is mounted (its
   * `basePath`): the provider sends the browser to
   * `<consoleBasePath>/oauth/consent/<uid>`. Default `''` (the root).
   */
  readonly consoleBasePath?: string | undefined;
  readonly settings?: OAuthSettings | undefined;
  /** Token, grant and request lifetimes; see {@link OAuthLifetimes} for the defaults. */
  readonly lifetimes?: Partial<OAuthLifetimes> | undefined;
  /** Failures of the provider, by error type only (never a token or a cookie); default silent. */
  readonly logger?: Logger | undefined;
  /** The clock; tests move it. Default the system time. */
  readonly clock?: (() => Date) | undefined;
}

/** The product as the MCP authorization server, mounted beside the MCP endpoint and the console. */
export interface AuthorizationServer<TRight extends string = string> {
  /** Whether a request path is the provider's (`/oauth/…` but the consent pages, and its discovery documents). */
  handles(pathname: string): boolean;
  /**
   * Answers one of {@link handles}' requests. `peer` is the socket's address
   * when the host knows it (core's `listen` passes the node request).
   */
  fetch(
    request: Request,
    peer?: { readonly socket?: { readonly remoteAddress?: string | undefined } },
  ): Promise<Response>;
  /** The resource its tokens are for: the MCP endpoint's URL. */
  resource(): string;
  /** The MCP endpoint as a protected resource (RFC 9728), for core's `listen({ oauth })` and the 401 challenge. */
  protectedResource(): ProtectedResourceOptions;
  /**
   * Checks an access token for the MCP endpoint: issued here and stored (so
   * not revoked, not expired), its grant a Gatehouse credential of the same
   * person, neither revoked nor expired; the token's scopes cut to the
   * credential's rights. Undefined for anything else.
   */
  verify(token: string): Promise<VerifiedAccessToken | undefined>;
  /**
   * Deletes a grant and everything issued under it (codes, access and
   * refresh tokens), inside the unit of work `unit` when one is passed:
   * called when its credential is revoked elsewhere, so a refresh fails at
   * once too ({@link forgettingGrants} does it for every revocation).
   */
  forgetGrant(grantId: string, unit?: unknown): Promise<void>;
  readonly scopes: OAuthScopes<TRight>;
  readonly lifetimes: OAuthLifetimes;
  /** The console path prefix of the consent pages (`<consoleBasePath>/oauth/consent/`). */
  readonly consentPrefix: string;
}

/** What the consent pages of this package reach behind a server; never exported from the package. */
interface ServerInternals {
  readonly provider: () => Promise<Provider>;
  readonly credentials: Credentials<string>;
  readonly credentialStore: CredentialStore;
  readonly store: AuthorizationStore;
  readonly clock: () => Date;
}

const internals = new WeakMap<AuthorizationServer<string>, ServerInternals>();

/** The provider, credentials and clock of a server made by {@link createAuthorizationServer}. */
export function internalsOf(server: AuthorizationServer<string>): ServerInternals {
  const found = internals.get(server);
  if (!found) throw new TypeError('Not an authorization server made by createAuthorizationServer.');
  return found;
}

/** The oidc-provider instance of a server made by {@link createAuthorizationServer}. */
export const providerOf = (server: AuthorizationServer<string>): Promise<Provider> =>
  internalsOf(server).provider();

/**
 * An authorization request that names no scope asks for the resource's
 * starting scopes (RFC 6749 §3.3: the server's documented default), so the
 * person is asked for them rather than the request failing empty.
 */
function withDefaultScope(request: Request, starting: readonly string[]): Request {
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.pathname !== '/oauth/authorize' || url.searchParams.get('scope')) {
    return request;
  }
  url.searchParams.set('scope', starting.join(' '));
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

function checkedLifetimes(given: Partial<OAuthLifetimes> | undefined): OAuthLifetimes {
  const lifetimes = { ...DEFAULT_LIFETIMES, ...given };
  for (const [name, value] of Object.entries(lifetimes)) {
    if (!Number.isSafeInteger(value) || value < 60)
      throw new ConfigurationError(
        `createAuthorizationServer: lifetimes.${name} must be whole seconds, at least 60.`,
      );
  }
  return lifetimes;
}

function checkedPath(name: string, path: string, empty: boolean): string {
  const ok = empty && path === '' ? true : /^\/[A-Za-z0-9._~\-/]*$/.test(path) && !path.endsWith('/');
  if (!ok)
    throw new ConfigurationError(
      `createAuthorizationServer: ${name} must be a path like /mcp (no trailing slash, no query)${empty ? ", or ''" : ''}.`,
    );
  return path;
}

/** An http(s) origin written without a path (a trailing slash allowed), else a configuration error. */
function originOf(given: string): string {
  const url = URL.parse(given);
  const plain =
    url && (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === given.replace(/\/$/, '');
  if (!plain)
    throw new ConfigurationError(
      'createAuthorizationServer: origin must be an http(s) origin with no path, like https://app.example.',
    );
  return url.origin;
}

const errorType = (error: unknown) => (error instanceof Error ? error.name : typeof error);

/**
 * The product as the MCP authorization server (OAuth 2.1 on `oidc-provider`):
 * authorization code with PKCE (S256 only, required for every client);
 * clients by Client ID Metadata Document (fetched only from public
 * addresses unless configured), pre-registered ({@link createClientRegistry})
 * or, when enabled, dynamic registration; resource indicators (RFC 8707)
 * with the MCP endpoint as the one audience; `iss` in the authorization
 * response (RFC 9207); refresh tokens that rotate (a reused one revokes the
 * grant). Every grant, code, token, client and key lives in the stores'
 * `AuthorizationStore`, shared by replicas. What a person grants on the
 * consent page ({@link consentPages}) is a Gatehouse credential for one
 * tenant: listed and revocable on the console's Tokens page, and a revoked
 * grant (reused refresh token, revocation request) revokes it, audited.
 * The provider is built on first use, when the origin is known.
 */
export function createAuthorizationServer<TRight extends string>(
  options: AuthorizationServerOptions<TRight>,
): AuthorizationServer<TRight> {
  const scopes = checkedScopes(options.scopes);
  const lifetimes = checkedLifetimes(options.lifetimes);
  const resourcePath = checkedPath('resourcePath', options.resourcePath ?? '/mcp', false);
  const consentPrefix = `${checkedPath('consoleBasePath', options.consoleBasePath ?? '', true)}/oauth/consent/`;
  const settings = options.settings ?? {};
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? (() => new Date());
  let checked: { readonly given: string; readonly origin: string } | undefined;
  const origin = (): string => {
    const given = typeof options.origin === 'function' ? options.origin() : options.origin;
    if (checked?.given !== given) checked = { given, origin: originOf(given) };
    return checked.origin;
  };
  const resource = () => new URL(resourcePath, `${origin()}/`).href;

  let building: Promise<Provider> | undefined;
  const build = async (): Promise<Provider> => {
    const now = () => clock().getTime();
    const keys = await loadAuthorizationKeys(options.store, settings, now());
    return createProvider({
      issuer: origin(),
      resource: resource(),
      rights: scopes.rights,
      consentPath: (uid) => `${consentPrefix}${uid}`,
      lifetimes,
      keys,
      store: options.store,
      now,
      ...(settings.dynamicRegistration ? { dynamicRegistration: true } : {}),
      ...(settings.allowPrivateMetadataFetch ? { allowPrivateMetadataFetch: true } : {}),
      ...(settings.metadataHosts ? { metadataHosts: settings.metadataHosts } : {}),
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
      onServerError: (error) => {
        logger.error({ event: 'oauth', error_type: errorType(error) }, 'authorization server error');
      },
      onGrantRevoked: (grantId) => {
        options.credentials
          .revoke(grantId, { actorId: 'oauth', channel: 'oauth' })
          .catch((error: unknown) => {
            logger.error(
              { event: 'oauth', error_type: errorType(error) },
              'revoking a grant credential failed',
            );
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

  const server: AuthorizationServer<TRight> = {
    scopes,
    lifetimes,
    consentPrefix,
    handles: (pathname) =>
      DISCOVERY.has(pathname) || (pathname.startsWith('/oauth/') && !pathname.startsWith(consentPrefix)),
    async fetch(incomingRequest, peer) {
      const request = withDefaultScope(withoutProviderSession(incomingRequest), scopes.starting);
      const encrypted = new URL(origin()).protocol === 'https:';
      const handler = async () => (await provider()).callback();
      const socket = { encrypted, remoteAddress: peer?.socket?.remoteAddress };
      const response = await runNodeHandler(handler, request, socket, { rewrite: withoutRegisteredScope });
      return withoutProviderSessionCookies(response);
    },
    resource,
    protectedResource: () => ({
      resource: resource(),
      authorizationServers: [origin()],
      scopesSupported: scopes.starting,
      ...(options.resourceName ? { resourceName: options.resourceName } : {}),
    }),
    async forgetGrant(grantId, unit) {
      await options.store.forgetGrant(grantId, unit);
    },
    async verify(token) {
      // the provider's opaque tokens are 43 base64url characters: anything else is refused before it is built
      if (!OPAQUE_TOKEN.test(token)) return undefined;
      const stored = await (await provider()).AccessToken.find(token);
      if (!stored?.grantId || !stored.accountId) return undefined;
      const credential = await options.credentialStore.findById(stored.grantId);
      if (!credential || credential.revokedAt !== null || credential.creatorId !== stored.accountId)
        return undefined;
      if (credential.expiresAt !== null && credential.expiresAt <= clock().getTime()) return undefined;
      const granted = new Set<string>(credential.rights);
      return {
        audience: typeof stored.aud === 'string' ? stored.aud : [...(stored.aud ?? [])],
        subject: stored.accountId,
        tenantIds: credential.tenantIds,
        scopes: rightsOfScopes(scopes, (stored.scope ?? '').split(' ')).filter((r) => granted.has(r)),
        expiresAt: (stored.exp ?? 0) * 1000,
        grantId: credential.id,
        clientLabel: credential.clientLabel,
      };
    },
  };
  const frozen = Object.freeze(server);
  internals.set(frozen as AuthorizationServer<string>, {
    provider,
    credentials: options.credentials as unknown as Credentials<string>,
    credentialStore: options.credentialStore,
    store: options.store,
    clock,
  });
  return frozen;
}

/**
 * The credential service whose `revoke` also forgets the OAuth grant of the
 * same id (its codes and tokens), inside `unit` when the revocation runs in
 * one: the console's Tokens page, a CLI and the provider all end a grant the
 * same way, and a refresh fails at once.
 */
export function forgettingGrants<TRight extends string>(
  server: AuthorizationServer<TRight>,
  credentials: Credentials<TRight>,
  unit?: unknown,
): Credentials<TRight> {
  return {
    ...credentials,
    revoke: async (id, by) => {
      const changed = await credentials.revoke(id, by);
      await server.forgetGrant(id, unit);
      return changed;
    },
  };
}
