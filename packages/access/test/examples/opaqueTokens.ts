// An example of the package README and docs/oauth.md; the region below is quoted there
// verbatim, and the identity-provider tests authenticate through it.
// #region introspection
import { introspectedAccessTokens, oauthAuthenticator, type PeopleSource } from '@gatehousejs/access';

const MCP_URL = 'https://desk.example/mcp'; // this server's resource identifier
type Right = 'tickets.read' | 'tickets.write';
const scopes = { 'tickets:read': ['tickets.read'], 'tickets:write': ['tickets.write'] } as const;

export function opaqueAuthenticator(issuer: string, people: PeopleSource<Right>) {
  return oauthAuthenticator<Right>({
    verify: introspectedAccessTokens({
      endpoint: `${issuer}/token/introspection`, // RFC 7662, asked on every request
      clientId: 'desk-mcp', // this server's own client at the provider
      clientSecret: process.env.DESK_INTROSPECTION_SECRET ?? '',
      issuer,
      audience: MCP_URL,
      tenantClaim: 'org_id',
    }),
    audience: MCP_URL,
    people,
    scopes,
  });
}
// #endregion introspection
