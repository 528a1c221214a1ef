import { type Credentials, oauthAuthenticator, type PeopleSource } from '@gatehousejs/access';
import type { Authenticate, CredentialStore } from '@gatehousejs/core';
import type { Right } from '../domain/model.js';
import { SCOPE_RIGHTS } from './scopes.js';
import type { AuthorizationServer } from './server.js';

/** What {@link mcpAuthenticator} combines. */
export interface McpAuthParts {
  readonly credentials: Credentials<Right>;
  readonly credentialStore: CredentialStore;
  readonly people: PeopleSource<Right>;
  readonly server: AuthorizationServer;
  readonly clock: () => Date;
}

/**
 * The MCP endpoint's authenticator: an MCP token (`ghmcp_…`) is checked as
 * ever; anything else must be an access token of this authorization server
 * for this MCP endpoint (audience, I21), unexpired, whose grant is a live
 * Gatehouse credential: its rights are the token's scopes ∩ the credential's
 * rights ∩ the person's live rights (I4), its tenant the credential's one
 * (I3), its toolset the credential's. Revoking the credential ends it on the
 * next request. REST API tokens and session cookies are neither: 401 (I5).
 */
export function mcpAuthenticator(parts: McpAuthParts): Authenticate<Right> {
  let oauth: { resource: string; authenticate: Authenticate<Right> } | undefined;
  const oauthFor = (resource: string): Authenticate<Right> => {
    if (oauth?.resource !== resource) {
      const authenticate = oauthAuthenticator<Right>({
        verify: (token) => parts.server.verify(token),
        audience: resource,
        people: parts.people,
        scopes: SCOPE_RIGHTS,
        clock: parts.clock,
      });
      oauth = { resource, authenticate };
    }
    return oauth.authenticate;
  };
  return async function authenticateMcp(presented) {
    if (parts.credentials.isMcpToken(presented.token)) return parts.credentials.authenticate(presented);
    const decision = await oauthFor(parts.server.resource())(presented);
    if (!decision.ok) return decision;
    const record = await parts.credentialStore.findById(decision.connection.connectionId);
    if (!record?.toolset) return decision;
    return { ok: true, connection: { ...decision.connection, toolset: record.toolset } };
  };
}
