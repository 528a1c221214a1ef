import { type Credentials, oauthAuthenticator, type PeopleSource } from '@gatehousejs/access';
import type { Authenticate } from '@gatehousejs/core';
import { scopeRights } from './scopes.js';
import { type AuthorizationServer, internalsOf } from './server.js';

/**
 * The MCP endpoint's authenticator for a product that is its own
 * authorization server: an MCP token (`ghmcp_…`) is checked by the
 * credential service as ever; anything else must be an access token of
 * `server` for its MCP endpoint (audience, I21), unexpired, whose grant is a
 * live Gatehouse credential: its rights are the token's scopes ∩ the
 * credential's rights ∩ the person's live rights from `people` (I4), its
 * tenant the credential's one (I3), its toolset the credential's. Revoking
 * the credential ends it on the next request. Anything else (a REST API
 * token, a session cookie) is 401 (I5).
 */
export function grantAuthenticator<TRight extends string>(
  server: AuthorizationServer<TRight>,
  people: PeopleSource<TRight>,
): Authenticate<TRight> {
  const { credentialStore, clock, ...rest } = internalsOf(server as AuthorizationServer<string>);
  // the server was made with credentials of TRight; its internals keep them untyped
  const credentials = rest.credentials as unknown as Credentials<TRight>;
  let oauth: { resource: string; authenticate: Authenticate<TRight> } | undefined;
  const oauthFor = (resource: string): Authenticate<TRight> => {
    if (oauth?.resource !== resource) {
      const authenticate = oauthAuthenticator<TRight>({
        verify: (token) => server.verify(token),
        audience: resource,
        people,
        scopes: scopeRights(server.scopes),
        clock,
      });
      oauth = { resource, authenticate };
    }
    return oauth.authenticate;
  };
  return async function authenticateMcp(presented) {
    if (credentials.isMcpToken(presented.token)) return credentials.authenticate(presented);
    const decision = await oauthFor(server.resource())(presented);
    if (!decision.ok) return decision;
    const record = await credentialStore.findById(decision.connection.connectionId);
    if (!record?.toolset) return decision;
    return { ok: true, connection: { ...decision.connection, toolset: record.toolset } };
  };
}
