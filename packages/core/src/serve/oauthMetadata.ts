import { ConfigurationError } from '../errors.js';
import type { JsonObject } from '../json.js';
import { httpsOrLocal } from './hostOrigin.js';
import type { ChallengeOptions } from './refusal.js';

/**
 * This server as an OAuth protected resource (RFC 9728): the HTTP
 * transports' `oauth` option.
 */
export interface ProtectedResourceOptions {
  /**
   * This MCP server's canonical URI (RFC 8707), e.g. `https://booking.example/mcp`:
   * the audience its access tokens must carry (I21). https, or http on a
   * loopback host; no fragment.
   */
  readonly resource: string;
  /** Issuer URLs of the authorization servers that issue tokens for it (at least one). */
  readonly authorizationServers: readonly string[];
  /** Scopes a client should ask for to start with (`scopes_supported`), also named in the 401 challenge. */
  readonly scopesSupported?: readonly string[];
  /** A human-readable name of the resource (`resource_name`). */
  readonly resourceName?: string;
  /** A page for developers about this server (`resource_documentation`). */
  readonly resourceDocumentation?: string;
}

/** The metadata document and where it is served. */
export interface ProtectedResourceMetadata {
  /** The RFC 9728 document. */
  readonly document: JsonObject;
  /** The URL clients are sent to in `resource_metadata`: the resource's path-suffixed well-known URL. */
  readonly url: string;
  /** The paths it answers on: `/.well-known/oauth-protected-resource` and its path-suffixed form. */
  readonly paths: readonly string[];
  /** Scopes named in the 401 challenge's `scope` (`scopesSupported`). */
  readonly scopes: readonly string[];
  /**
   * Answers a request for one of `paths`: GET and HEAD get the JSON document
   * (no authentication, CORS-readable), other methods 405; another path
   * gets `undefined`, for the caller's next handler.
   */
  fetch(request: Request): Response | undefined;
}

/** The headers of the metadata document: JSON, cacheable for five minutes, readable cross-origin. */
export const METADATA_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  'cache-control': 'public, max-age=300',
  'access-control-allow-origin': '*',
});

/** The well-known prefix of RFC 9728 §3. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** RFC 6749 §3.3 scope-token characters: printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function absoluteUrl(value: unknown, what: string, where: string): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || url.hash || !httpsOrLocal(url)) {
    throw new ConfigurationError(
      `${where}: oauth.${what} must be an absolute https URL without a fragment (http only on localhost).`,
    );
  }
  return url;
}

function checkScopes(scopes: unknown, where: string): readonly string[] {
  if (scopes === undefined) return [];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))) {
    throw new ConfigurationError(
      `${where}: oauth.scopesSupported must be a list of scope names without spaces or quotes.`,
    );
  }
  return [...scopes];
}

/** The paths the metadata answers on, for a resource and (for `listen`) the MCP path. */
function wellKnownPaths(resource: URL, mcpPath: string | undefined): string[] {
  const suffix = (path: string) => (path === '/' ? '' : path.replace(/\/$/, ''));
  const paths = [PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}${suffix(resource.pathname)}`];
  if (mcpPath !== undefined) paths.push(`${PROTECTED_RESOURCE_PATH}${suffix(mcpPath)}`);
  return [...new Set(paths)];
}

/**
 * Builds this server's OAuth protected-resource metadata (RFC 9728, as the
 * MCP 2026-07-28 authorization spec requires) from the `oauth` option,
 * checking it up front (a `ConfigurationError` names the bad field). `listen`
 * serves it itself; a host of `createHttpHandler` mounts `fetch` before its
 * other routes. `mcpPath` adds the path-suffixed form for that path.
 *
 * @example
 * const metadata = protectedResourceMetadata({ resource: 'https://booking.example/mcp', authorizationServers: ['https://booking.example'] });
 */
export function protectedResourceMetadata(
  options: ProtectedResourceOptions,
  mcpPath?: string,
  where = 'protectedResourceMetadata',
): ProtectedResourceMetadata {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${where}: oauth must be an object { resource, authorizationServers, … }.`);
  }
  const resource = absoluteUrl(options.resource, 'resource', where);
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) {
    throw new ConfigurationError(`${where}: oauth.authorizationServers must list at least one issuer URL.`);
  }
  for (const server of servers) absoluteUrl(server, 'authorizationServers', where);
  const scopes = checkScopes(options.scopesSupported, where);
  if (options.resourceDocumentation !== undefined)
    absoluteUrl(options.resourceDocumentation, 'resourceDocumentation', where);
  const document: JsonObject = {
    resource: options.resource,
    authorization_servers: [...servers],
    bearer_methods_supported: ['header'],
    ...(options.scopesSupported ? { scopes_supported: [...scopes] } : {}),
    ...(options.resourceName !== undefined ? { resource_name: String(options.resourceName) } : {}),
    ...(options.resourceDocumentation !== undefined
      ? { resource_documentation: options.resourceDocumentation }
      : {}),
  };
  const paths = wellKnownPaths(resource, mcpPath);
  const suffixed = paths[1] ?? PROTECTED_RESOURCE_PATH;
  const url = new URL(suffixed, resource.origin).href;
  const body = JSON.stringify(document);
  const headers = { ...METADATA_HEADERS };
  return Object.freeze({
    document,
    url,
    paths: Object.freeze(paths),
    scopes: Object.freeze(scopes),
    fetch(request: Request): Response | undefined {
      if (!paths.includes(new URL(request.url).pathname)) return undefined;
      if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
      if (request.method === 'GET') return new Response(body, { status: 200, headers });
      return new Response('Method Not Allowed', {
        status: 405,
        headers: { 'content-type': 'text/plain', allow: 'GET, HEAD' },
      });
    },
  });
}

/** The challenge parameters of a transport's options: `resourceMetadataUrl`, else the one `oauth` derives. */
export function challengeOptions(
  options: { readonly resourceMetadataUrl?: string; readonly oauth?: ProtectedResourceOptions },
  where: string,
): ChallengeOptions {
  const metadata = options.oauth ? protectedResourceMetadata(options.oauth, undefined, where) : undefined;
  return {
    resourceMetadataUrl: options.resourceMetadataUrl ?? metadata?.url,
    scopes: metadata?.scopes,
  };
}
