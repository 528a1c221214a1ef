import { DEFAULT_TENANT_LIKE_NAMES } from '@gatehousejs/core';
import { isPlainObject } from '../../internal/jsonRpc.js';
import { stringLeaves } from '../args.js';
import { defineToolCheck, describeReply, succeeded } from '../check.js';
import type { ContractReply } from '../client.js';
import { errorCode } from '../envelope.js';
import type { ListingFixture } from '../fixture.js';
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

/** The tenant-like property names (I3) an input schema declares, at any depth (core's names, compared without case, `_` or `-`). */
export function tenantLikeProperties(schema: unknown): string[] {
  return propertyNames(schema).filter((name) => TENANT_LIKE.has(squash(name)));
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
    const findings = tenantLikeProperties(ctx.tool.inputSchema).map(
      (name) => `the input schema declares the tenant-like argument "${name}"`,
    );
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

const requiredNames = (tool: ContractTool) =>
  Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required.map(String) : [];

/**
 * A `read` tool whose input requires no id: it can return rows it was not
 * pointed at (a list, a search), so the I3 list check needs its `listing`.
 */
export function looksLikeList(tool: ContractTool): boolean {
  return (
    tool.effect === 'read' && !tool.confirmsOutward && !requiredNames(tool).some((n) => REFERENCE.test(n))
  );
}

const parsedStrings = (text: string) => {
  try {
    return stringLeaves(JSON.parse(text)).map((leaf) => leaf.text);
  } catch {
    return [];
  }
};

/**
 * Where `marker` shows in a tool result: a string of `content` (as sent, or a
 * string of the JSON it holds) or of `structuredContent`, by path.
 */
export function markerPlaces(result: unknown, marker: string): string[] {
  if (!isPlainObject(result)) return [];
  const inContent = stringLeaves(result.content, 'content').filter(
    (leaf) => leaf.text.includes(marker) || parsedStrings(leaf.text).some((text) => text.includes(marker)),
  );
  const inStructured = stringLeaves(result.structuredContent, 'structuredContent').filter((leaf) =>
    leaf.text.includes(marker),
  );
  return [...inContent, ...inStructured].map((leaf) => leaf.path);
}

function markerProblems({ home, other }: ListingFixture): string[] {
  if (typeof home !== 'string' || typeof other !== 'string' || home === '' || other === '') {
    return ["the fixture's listing needs a non-empty home and other marker"];
  }
  if (home.includes(other) || other.includes(home)) {
    return [
      `the listing markers ${JSON.stringify(home)} and ${JSON.stringify(other)} overlap; pick two strings neither of which contains the other`,
    ];
  }
  return [];
}

/** Why a listing call as `who` proves nothing (it failed, or shows no row with `marker`), if it does not. */
function unexercised(reply: ContractReply, who: 'home' | 'other', marker: string): string | undefined {
  if (!succeeded(reply)) return `not exercised: the call as ${who} was answered with ${describeReply(reply)}`;
  if (markerPlaces(reply.result, marker).length > 0) return undefined;
  return `not exercised: the call as ${who} lists no row with ${who}'s marker ${JSON.stringify(marker)}`;
}

/** I3: a list or search shows rows of the caller's tenant and none of another tenant's. */
export const foreignRowsCheck = defineToolCheck({
  id: 'I3.foreign-rows',
  title: 'tenant-scoped lists',
  does: "lists the caller's tenant's rows and none of another tenant's, in text or structuredContent",
  select: (tool) => {
    const listing = tool.fixture.listing;
    if (listing === false || tool.confirmsOutward) return 'not-applicable';
    return listing || looksLikeList(tool) ? 'run' : 'not-applicable';
  },
  async run(ctx) {
    const spec = ctx.tool.fixture.listing;
    if (!spec) {
      return [
        `${ctx.tool.name} is a read tool with no required id, so it can list rows, but the fixture declares no listing for it: give it listing: { args, home, other } with a marker only each tenant's rows hold, or listing: false if it returns no rows of a tenant`,
      ];
    }
    const problems = markerProblems(spec);
    if (problems.length > 0) return problems;
    const args = (await ctx.args(spec.args)) ?? (await ctx.sample(ctx.tool));
    const home = await (await ctx.as(ctx.host.home)).call(ctx.tool.name, args);
    const findings = markerPlaces(home.result, spec.other).map(
      (place) => `the call as home shows the other tenant's marker ${JSON.stringify(spec.other)} at ${place}`,
    );
    const homeMissing = unexercised(home, 'home', spec.home);
    if (homeMissing) {
      findings.push(
        `${homeMissing}; an empty or filtered list proves nothing: fix listing.args or listing.home`,
      );
    }
    const otherArgs = (await ctx.args(spec.otherArgs)) ?? args;
    const other = await (await ctx.as(ctx.host.other)).call(ctx.tool.name, otherArgs);
    const otherMissing = unexercised(other, 'other', spec.other);
    if (otherMissing) {
      findings.push(
        `${otherMissing}, so its absence for home proves nothing: fix listing.other or listing.otherArgs`,
      );
    }
    return findings;
  },
});
