import { ConfigurationError } from '@gatehousejs/core';

/** The provider's outgoing fetch, as oidc-provider calls it (its `fetch` setting). */
export type ProviderFetch = (url: URL | string, init: RequestInit) => Promise<Response>;

/** Characters that make an entry a URL, a path or credentials rather than `host[:port]`. */
const NOT_A_HOST = /[/\\@?#\s]/;
/** A host name or IPv4 address, or an IPv6 address in brackets, then an optional port. */
const HOST_AND_PORT = /^(?:\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/;

/**
 * One allowed entry in the form a URL's `host` has (lower case, IPv4
 * normalized, the default https port 443 dropped), or undefined when the entry
 * is not `host` or `host:port` with a port from 1 to 65535. A bare `host`
 * stands for port 443, the port of an https URL that names none.
 */
export function metadataHostOf(entry: string): string | undefined {
  if (NOT_A_HOST.test(entry)) return undefined;
  const match = HOST_AND_PORT.exec(entry);
  if (!match) return undefined;
  const port = match[1] === undefined ? 443 : Number(match[1]);
  if (port < 1 || port > 65_535) return undefined;
  return URL.parse(`https://${entry}/`)?.host;
}

/**
 * Reads a list of comma-separated `host[:port]` entries (an environment
 * variable's value) whose client metadata documents may be fetched although
 * they resolve to a private or loopback address. Unset or empty: none. An
 * empty entry, a URL or a port out of range is a `ConfigurationError` naming
 * `variable`.
 */
export function metadataHostsFrom(raw: string | undefined, variable: string): readonly string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw.split(',').map((item) => {
    const entry = item.trim();
    const host = metadataHostOf(entry);
    if (host === undefined) {
      throw new ConfigurationError(
        `${variable} must be comma-separated host or host:port entries (port 1 to 65535, IPv6 in brackets, no scheme or path), such as 127.0.0.1:8443,localhost; ${JSON.stringify(entry)} is not one.`,
      );
    }
    return host;
  });
}

/**
 * The request options without the provider's address-guarding dispatcher, so
 * the connection may go to a private or loopback address.
 */
function withoutAddressGuard(init: RequestInit): RequestInit {
  const { dispatcher: _dispatcher, ...rest } = init as RequestInit & { dispatcher?: unknown };
  return rest;
}

/**
 * The provider's fetch without its special-use-address guard for every host:
 * only when configured (`allowPrivateMetadataFetch`, local development).
 */
export function unguardedFetch(base: ProviderFetch = globalThis.fetch): ProviderFetch {
  return function unguardedProviderFetch(url, init) {
    return base(url, withoutAddressGuard(init));
  };
}

/**
 * The provider's fetch that lets the listed hosts' https URLs reach private
 * and loopback addresses; every other request keeps the guard oidc-provider
 * put in its options (a dispatcher that drops connections to special-use
 * addresses), so its address rules stay the library's. A host matches by the
 * URL's host as written (`localhost` and `127.0.0.1` are different entries),
 * port included. Entries that are not `host[:port]` throw a configuration error.
 */
export function metadataFetch(
  hosts: readonly string[],
  base: ProviderFetch = globalThis.fetch,
): ProviderFetch {
  const allowed = new Set(
    hosts.map((entry) => {
      const host = metadataHostOf(entry);
      if (host === undefined) {
        throw new ConfigurationError(
          `metadataHosts must list host or host:port entries (port 1 to 65535); ${JSON.stringify(entry)} is not one.`,
        );
      }
      return host;
    }),
  );
  return function metadataHostsFetch(url, init) {
    const target = URL.parse(String(url));
    const open = target?.protocol === 'https:' && allowed.has(target.host);
    return base(url, open ? withoutAddressGuard(init) : init);
  };
}
