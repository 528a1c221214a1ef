/** What `npm start` tells the person who started it. */
export interface BannerFacts {
  readonly mcpUrl: URL;
  readonly apiUrl: URL;
  /** The operator pages and a one-time sign-in link to them for the demo person. */
  readonly pages?: { readonly url: URL; readonly signInLink: string };
  readonly token: string;
  readonly credentialId: string;
  readonly person: string;
  readonly workspace: string;
  readonly expiresAt: Date;
  readonly file: string;
  readonly seeded: boolean;
  /** Ids of the earlier demo tokens this start revoked. */
  readonly revoked?: readonly string[];
}

const revokedLine = (ids: readonly string[] = []): string =>
  ids.length === 0 ? '' : ` This start revoked the previous one (${ids.join(', ')}).`;

const pagesLines = (pages: BannerFacts['pages']): string =>
  pages === undefined
    ? ''
    : `Pages        ${pages.url.href}\n             Sign-in link (one use, 15 min): ${pages.signInLink}\n`;

/**
 * The start-up text: the MCP URL, the API, a one-time sign-in link to the
 * operator pages, the demo token (shown once) and ready-to-paste client configuration.
 */
export function banner(facts: BannerFacts): string {
  const { mcpUrl, token } = facts;
  const inspector = {
    mcpServers: {
      booking: { type: 'streamable-http', url: mcpUrl.href, headers: { Authorization: `Bearer ${token}` } },
    },
  };
  return `Gatehouse booking example

Database     ${facts.file}${facts.seeded ? ' (created and seeded with demo data)' : ''}
MCP URL      ${mcpUrl.href}
Product API  ${facts.apiUrl.href}
${pagesLines(facts.pages)}Demo token   ${token}
             ${facts.person} in ${facts.workspace}; id ${facts.credentialId}; expires ${facts.expiresAt.toISOString()}.
             Shown once: only its hash is stored. Revoke it with: npm run booking -- token revoke ${facts.credentialId}
             The next start revokes it and mints a new one.${revokedLine(facts.revoked)}

Claude Code
  claude mcp add --transport http booking ${mcpUrl.href} --header "Authorization: Bearer ${token}"

MCP Inspector (save as mcp.json, then: npx @modelcontextprotocol/inspector --config mcp.json --server booking)
${JSON.stringify(inspector, null, 2)}

Stdio        BOOKING_TOKEN=${token} node examples/booking/dist/main.js --stdio
More tokens  npm run booking -- token create --workspace ws_acme --person p_dan --rights customers.read,bookings.read --toolset compact
Logs go to stderr. Press Ctrl+C to stop.
`;
}
