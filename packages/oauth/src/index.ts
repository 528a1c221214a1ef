/**
 * The product as the MCP authorization server: OAuth 2.1 on `oidc-provider`
 * (authorization code with PKCE S256, resource indicators, `iss`, rotating
 * refresh tokens with reuse detection, client ID metadata documents behind
 * an SSRF guard, pre-registered clients, dynamic registration off by
 * default), its records and keys in `@gatehousejs/stores`, its consent
 * screen a page of `@gatehousejs/console`, and what a person grants a
 * Gatehouse credential for one tenant, listed and revocable there.
 *
 * @packageDocumentation
 */

export type { OAuthModelAdapter } from './adapter.js';
export { oauthAdapter } from './adapter.js';
export { grantAuthenticator } from './authenticate.js';
export type {
  ClientRegistry,
  ClientRegistryOptions,
  RegisteredClient,
  RegistryActor,
  StaticClient,
} from './clients.js';
export { ClientRegistrationError, clientMetadata, createClientRegistry } from './clients.js';
export type { ClientProvenance, ConsentRequest } from './consent.js';
export { consentPages, INTERACTION_COOKIE } from './consentPage.js';
export type { AuthorizationKeys, KeySources, PrivateJwk } from './keys.js';
export type { OAuthLifetimes } from './lifetimes.js';
export { DEFAULT_LIFETIMES } from './lifetimes.js';
export type { ProviderFetch } from './metadataFetch.js';
export type { OAuthScopes } from './scopes.js';
export type { AuthorizationServer, AuthorizationServerOptions, OAuthSettings } from './server.js';
export { createAuthorizationServer, forgettingGrants, oauthSettingsFromEnv } from './server.js';
export { PROVIDER_SESSION_COOKIES } from './sessionCookies.js';
