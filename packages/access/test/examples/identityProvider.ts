// An example of the package README and docs/oauth.md; the region below is quoted there
// verbatim, and the identity-provider tests authenticate through it.
// #region jwt
import { jwtAccessTokens, oauthAuthenticator, type PeopleSource } from '@gatehousejs/access';

const MCP_URL = 'https://desk.example/mcp'; // this server's resource identifier
type Right = 'tickets.read' | 'tickets.write';
const scopes = { 'tickets:read': ['tickets.read'], 'tickets:write': ['tickets.write'] } as const;

export function jwtAuthenticator(issuer: string, people: PeopleSource<Right>) {
  return oauthAuthenticator<Right>({
    verify: jwtAccessTokens({
      issuer, // exactly as the tokens' iss says it
      audience: MCP_URL, // aud must name this server (I21)
      jwks: new URL('jwks', `${issuer}/`), // the jwks_uri of the issuer's metadata
      tenantClaim: 'org_id', // or leave it out: the tenant the request names (I3)
    }),
    audience: MCP_URL,
    people, // the person's live rights in that tenant (I4)
    scopes, // what each scope grants
  });
}
// #endregion jwt
