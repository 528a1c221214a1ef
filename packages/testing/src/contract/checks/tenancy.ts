import { DEFAULT_TENANT_LIKE_NAMES } from '@gatehousejs/core';
import { isPlainObject } from '../../internal/jsonRpc.js';
import { defineToolCheck, describeReply } from '../check.js';
import { errorCode } from '../envelope.js';
import type { ContractTool } from '../plan.js';

const REFERENCE = /(^id$|^ids$|_id$|_ids$)/;
const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const TENANT_LIKE = new Set(DEFAULT_TENANT_LIKE_NAMES.map(squash));

/** Every property name an input schema declares, at any depth. */
export function propertyNames(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(propertyNames);
  if (!isPlainObject(schema)) return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === 'properties' && isPlainObject(value)
      ? [...Object.keys(value), ...Object.values(value).flatMap(propertyNames)]
      : propertyNames(value),
  );
}

const takesReference = (tool: ContractTool) => propertyNames(tool.inputSchema).some((n) => REFERENCE.test(n));

/** I3: another tenant's ids resolve to `not_found` and change nothing. */
export const foreignIdsCheck = defineToolCheck({
  id: 'I3.foreign-ids',
  title: 'cross-tenant ids',
  does: "answers another tenant's ids with not_found and changes nothing",
  select: (tool) =>
    tool.fixture.foreign
      ? 'run'
      : takesReference(tool)
        ? { skip: `${tool.name} takes a reference but the fixture gives no foreign arguments for it` }
        : 'not-applicable',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const args = await ctx.args(ctx.tool.fixture.foreign);
    const mark = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    const findings: string[] = [];
    if (errorCode(reply.result) !== 'not_found') {
      findings.push(`another tenant's ids were answered with ${describeReply(reply)}, not not_found`);
    }
    for (const change of await ctx.since(mark))
      findings.push(`${change} after a call with another tenant's ids`);
    return findings;
  },
});

/** I3: no tool takes a tenant parameter, and a `tenant_id` argument is refused without effect. */
export const tenantParameterCheck = defineToolCheck({
  id: 'I3.tenant-parameter',
  title: 'no tenant parameter',
  does: 'declares no tenant-like argument and refuses tenant_id without effect',
  async run(ctx) {
    const findings = propertyNames(ctx.tool.inputSchema)
      .filter((name) => TENANT_LIKE.has(squash(name)))
      .map((name) => `the input schema declares the tenant-like argument "${name}"`);
    const client = await ctx.as(ctx.host.home);
    const args = { ...(await ctx.sample(ctx.tool)), tenant_id: ctx.host.other.tenantId };
    const mark = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    if (reply.result?.isError !== true) {
      findings.push(`a call naming another tenant in tenant_id was answered with ${describeReply(reply)}`);
    }
    for (const change of await ctx.since(mark)) findings.push(`${change} after a call naming tenant_id`);
    return findings;
  },
});
