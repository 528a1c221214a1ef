import type { ProtectedResourceOptions } from '@gatehousejs/core';

/** The scopes a client starts with (named in the 401 challenge): reading bookings and customers. */
export const STARTING_SCOPES: readonly string[] = ['bookings.read', 'customers.read'];

/**
 * The MCP endpoint as an OAuth protected resource (RFC 9728): its URL,
 * this product as its one authorization server, the scopes to start with.
 */
export function resourceMetadataOptions(origin: string): ProtectedResourceOptions {
  return {
    resource: new URL('/mcp', `${origin}/`).href,
    authorizationServers: [origin],
    scopesSupported: STARTING_SCOPES,
    resourceName: 'Booking',
  };
}
