import { isPlainObject } from '../../internal/jsonRpc.js';
import { defineToolCheck, describeReply } from '../check.js';
import type { ContractClient, ContractReply } from '../client.js';
import { errorCode } from '../envelope.js';

/** The codes of a tool refused because the connection may not see it (I6, I7). */
const HIDDEN_CODES = new Set(['tenant_disabled', 'tool_hidden', 'missing_right', 'unknown_tool']);

const listedNames = (reply: ContractReply): Set<string> => {
  const tools = reply.result?.tools;
  return new Set(
    Array.isArray(tools)
      ? tools.flatMap((t) => (isPlainObject(t) && typeof t.name === 'string' ? [t.name] : []))
      : [],
  );
};

/** Lists, then calls `tool`: a finding when the listing and the call disagree about visibility. */
async function disagreement(
  client: ContractClient,
  tool: string,
  args: Record<string, unknown>,
  when: string,
): Promise<string[]> {
  const listing = await client.list();
  if (listing.status !== 200) return [`tools/list ${when} got ${describeReply(listing)}`];
  const listed = listedNames(listing).has(tool);
  const reply = await client.call(tool, args);
  const code = errorCode(reply.result);
  const hidden = reply.status === 200 && code !== undefined && HIDDEN_CODES.has(code);
  if (listed && hidden) return [`${when} tools/list shows the tool but calling it answers ${code}`];
  if (!listed && !hidden) {
    return [
      `${when} tools/list leaves the tool out but calling it is not refused as hidden (${describeReply(reply)})`,
    ];
  }
  return [];
}

/**
 * I7 (and I6): tools/list and tools/call share one visibility decision. A
 * tool is listed exactly when calling it is not refused as hidden, both with
 * the tenant's agent access on and with it switched off.
 */
export const listingAgreesCheck = defineToolCheck({
  id: 'I7.listing-agrees',
  title: 'listing and calling agree',
  does: 'is listed exactly when a call is not refused as hidden, with its tenant on and switched off',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const args = await ctx.sample(ctx.tool);
    const findings = await disagreement(client, ctx.tool.name, args, 'with agent access on,');
    await ctx.host.setTenantAccess(ctx.host.home.tenantId, false);
    findings.push(...(await disagreement(client, ctx.tool.name, args, 'with the tenant switched off,')));
    return findings;
  },
});
