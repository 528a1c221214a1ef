import type { AuthorizationStore } from '@gatehousejs/core';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { oauthAdapter } from './adapter.js';
import { providerErrorPage } from './errorPage.js';
import type { AuthorizationKeys } from './keys.js';
import type { OAuthLifetimes } from './lifetimes.js';
import { metadataFetch, type ProviderFetch, unguardedFetch } from './metadataFetch.js';

/** How the authorization server is set up. */
export interface ProviderSettings {
  /** The issuer: the product's public origin, e.g. `https://booking.example`. */
  readonly issuer: string;
  /** The one resource its tokens are for: the MCP endpoint's URL (RFC 8707 audience). */
  readonly resource: string;
  /** The rights, each a scope of the same name. */
  readonly rights: readonly string[];
  /** The consent page's path for an interaction. */
  readonly consentPath: (uid: string) => string;
  readonly lifetimes: OAuthLifetimes;
  readonly keys: AuthorizationKeys;
  /** Where its records and keys live: the stores' AuthorizationStore, shared by replicas. */
  readonly store: AuthorizationStore;
  readonly now: () => number;
  /** Dynamic client registration (RFC 7591) for clients without a metadata document; default off. */
  readonly dynamicRegistration?: boolean;
  /** Whether a client's metadata document may be fetched from a private or loopback address; default no. */
  readonly allowPrivateMetadataFetch?: boolean;
  /**
   * Hosts (`host` or `host:port`) whose metadata documents may be fetched
   * from a private or loopback address; every other host keeps the guard.
   */
  readonly metadataHosts?: readonly string[];
  /** Replaces the provider's outgoing fetch (tests); see `OAuthSettings.fetch`. */
  readonly fetch?: ProviderFetch;
  /** Called when the provider revoked a grant (a reused refresh token, a revocation request). */
  readonly onGrantRevoked?: (grantId: string) => void;
  /** Called with an unexpected error of the provider (it answered 500 `server_error`); log its type only. */
  readonly onServerError?: (error: unknown) => void;
}

/** The paths the provider answers, all under `/oauth` but its RFC 8414 and OIDC discovery documents. */
export const PROVIDER_ROUTES = Object.freeze({
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  jwks: '/oauth/jwks',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  end_session: '/oauth/logout',
  introspection: '/oauth/introspect',
  userinfo: '/oauth/userinfo',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
});

function configuration(settings: ProviderSettings, errors: OidcErrors): Configuration {
  const { resource, rights, lifetimes } = settings;
  return {
    adapter: oauthAdapter(settings.store, settings.now) as unknown as Configuration['adapter'],
    jwks: { keys: settings.keys.jwks.keys.map((k) => ({ ...k })) } as Configuration['jwks'],
    cookies: { keys: [...settings.keys.cookieKeys] },
    clients: [],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    // the rights are the MCP resource's scopes (getResourceServerInfo); listed here too so that
    // clients may register with them (the SDK sends the resource's scopes in its registration)
    scopes: ['openid', 'offline_access', ...rights],
    claims: { openid: ['sub'] },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    routes: { ...PROVIDER_ROUTES },
    interactions: { url: async (_ctx, interaction) => settings.consentPath(interaction.uid) },
    pkce: { required: () => true },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // a token lives with its grant (the Gatehouse credential, listed and revocable), never with a
    // browser session: the provider keeps none (see withoutProviderSession), and a second consent
    // of the same client is a second grant beside the first, not its end
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: lifetimes.accessTokenSeconds,
      AuthorizationCode: 60,
      Interaction: lifetimes.interactionSeconds,
      // a session lasts one authorization: its cookie is never kept (the product's sign-in is the session)
      Session: 600,
      Grant: lifetimes.grantSeconds,
      RefreshToken: lifetimes.grantSeconds,
    },
    renderError: (ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.body = providerErrorPage(out);
    },
    // a public client may call the token and revocation endpoints from its redirect URIs' origins (browser clients)
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: settings.dynamicRegistration === true },
      revocation: { enabled: true },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, asked) => {
          if (asked !== resource) throw new errors.InvalidTarget(`Tokens are issued only for ${resource}.`);
          return {
            scope: rights.join(' '),
            audience: resource,
            accessTokenTTL: lifetimes.accessTokenSeconds,
            accessTokenFormat: 'opaque',
          };
        },
      },
    } as Configuration['features'],
    ...outgoingFetch(settings),
  };
}

/**
 * The provider's outgoing fetch: a test's replacement; else no guard at all
 * when private fetches are allowed; else the guard lifted for the listed
 * hosts only; else oidc-provider's own (special-use addresses refused).
 */
function outgoingFetch(settings: ProviderSettings): Pick<Configuration, 'fetch'> {
  const use = (fetch: ProviderFetch) => ({ fetch: fetch as NonNullable<Configuration['fetch']> });
  if (settings.fetch) return use(settings.fetch);
  if (settings.allowPrivateMetadataFetch) return use(unguardedFetch());
  if (settings.metadataHosts?.length) return use(metadataFetch(settings.metadataHosts));
  return {};
}

type OidcErrors = typeof import('oidc-provider')['errors'];

/**
 * The product's OAuth 2.1 authorization server on oidc-provider:
 * authorization code with PKCE (S256 only, required for every client),
 * clients by Client ID Metadata Document (fetched only from public
 * addresses, but for the hosts configured or all when allowed) or, when
 * enabled, dynamic registration;
 * resource indicators (RFC 8707) with the MCP endpoint as the one audience;
 * `iss` in the authorization response (RFC 9207); refresh tokens that rotate
 * (a reused one revokes the grant); short-lived opaque access tokens. Every
 * grant, code, token, session and client lives in the product's database;
 * no development interaction or consent screen is served (the consent page
 * is a console module, `consentPages`).
 */
export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  // imported on first use: oidc-provider is ESM only (the CommonJS build loads it with import()),
  // and it warns on stderr when imported under Node 20
  const { default: Provider, errors } = await import('oidc-provider');
  const provider = new Provider(settings.issuer, configuration(settings, errors));
  // proxy headers are not trusted: the bridge says whether the public origin is https
  if (settings.onGrantRevoked) {
    const onRevoked = settings.onGrantRevoked;
    provider.on('grant.revoked', (_ctx: unknown, grantId: string) => onRevoked(grantId));
  }
  if (settings.onServerError) {
    const onError = settings.onServerError;
    provider.on('server_error', (_ctx: unknown, error: unknown) => onError(error));
  }
  return provider;
}
