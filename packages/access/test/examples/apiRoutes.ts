// An example of the package README; the region below is quoted there verbatim.
// #region readme
import { refuseMcpTokens } from '@gatehousejs/access';

// credentials.isMcpToken from createCredentials; a prefix test stands in for it here.
const isMcpToken = (value: string | null | undefined) => /^(Bearer\s+)?ghmcp_/.test(value ?? '');
const refusal = refuseMcpTokens(isMcpToken);

// A product API route: an MCP token in Authorization or a cookie answers 401 (I5).
export async function listBookings(request: Request): Promise<Response> {
  const refused = refusal.check(request);
  if (refused) return refused;
  return new Response(JSON.stringify({ bookings: [] }), { headers: { 'content-type': 'application/json' } });
}
// Express / connect: app.use('/api', refusal.middleware)
// #endregion readme
