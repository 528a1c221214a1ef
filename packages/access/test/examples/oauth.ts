// An example of the package README; the region below is quoted there verbatim.
// #region readme
import { oauthAuthenticator, type PeopleSource, type VerifiedAccessToken } from '@gatehousejs/access';

const people: PeopleSource = {
  current: async (tenantId, personId) =>
    tenantId === 'ws_1' && personId === 'ada' ? { active: true, rights: ['notes.read'] } : undefined,
};

// Your JWT library checks the signature and the issuer and returns the claims.
async function verify(token: string): Promise<VerifiedAccessToken | undefined> {
  if (token !== 'signed-for-notes') return undefined;
  return {
    audience: 'https://notes.example/mcp',
    subject: 'ada',
    tenantIds: ['ws_1'],
    rights: ['notes.read', 'notes.export'],
    expiresAt: Date.now() + 3_600_000,
    grantId: 'grant_1',
    clientLabel: 'Claude',
  };
}

// Tokens issued for another audience answer 401 (I21); rights are still cut live (I4).
export const authenticate = oauthAuthenticator({ audience: 'https://notes.example/mcp', verify, people });
// gh.createServer({ …, authenticate })
// #endregion readme
