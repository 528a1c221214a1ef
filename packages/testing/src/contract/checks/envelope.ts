import type { Json } from '@gatehousejs/core';
import { isPlainObject } from '../../internal/jsonRpc.js';
import { toolResultText } from '../../toolResult.js';
import { defineToolCheck, describeReply, type ToolCheckContext } from '../check.js';
import {
  errorEnvelopeFindings,
  leakFindings,
  OutputSchemas,
  outputSchemaFindings,
  resultShapeFindings,
} from '../envelope.js';
import type { LedgerEntry } from '../ledger.js';
import { UNKNOWN_ARGUMENT } from './arguments.js';

/** A value of the wrong JSON type for `schema`, or undefined when any type is allowed. */
export function wrongTypeFor(schema: unknown): Json | undefined {
  const type = isPlainObject(schema) ? schema.type : undefined;
  switch (Array.isArray(type) ? type[0] : type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not a number';
    case 'boolean':
      return 'yes';
    case 'array':
      return { not: 'an array' };
    case 'object':
      return 'not an object';
    default:
      return undefined;
  }
}

/** Calls that must end in a tool error: an unknown field, and a wrongly typed first argument. */
async function provokeErrors(ctx: ToolCheckContext): Promise<string[]> {
  const client = await ctx.as(ctx.host.home);
  const sample = await ctx.sample(ctx.tool);
  const properties = isPlainObject(ctx.tool.inputSchema.properties) ? ctx.tool.inputSchema.properties : {};
  const calls: [string, Record<string, Json>][] = [
    ['an unknown field', { ...sample, [UNKNOWN_ARGUMENT]: 1 }],
  ];
  const first = Object.entries(properties).find(([, schema]) => wrongTypeFor(schema) !== undefined);
  if (first)
    calls.push([`a wrongly typed ${first[0]}`, { ...sample, [first[0]]: wrongTypeFor(first[1]) ?? null }]);
  const findings: string[] = [];
  for (const [label, args] of calls) {
    const reply = await client.call(ctx.tool.name, args);
    if (reply.result?.isError !== true)
      findings.push(`${label} was answered with ${describeReply(reply)}, not a tool error`);
  }
  return findings;
}

/** Runs `judge` over every result the run has seen for the tool; repeated problems are counted once. */
function judgeAll(entries: readonly LedgerEntry[], judge: (entry: LedgerEntry) => string[]): string[] {
  const counts = new Map<string, number>();
  for (const entry of entries) {
    for (const finding of judge(entry)) counts.set(finding, (counts.get(finding) ?? 0) + 1);
  }
  return [...counts].map(([finding, n]) => (n > 1 ? `${finding} (${n} results)` : finding));
}

/** A result's text blocks, or nothing when it has none. */
function textOfResult(result: LedgerEntry['result']): string {
  try {
    return `\n${toolResultText(result)}`;
  } catch {
    return '';
  }
}

/** I18: every error result starts with `Error:` and ends with a JSON line equal to structuredContent. */
export const errorEnvelopeCheck = defineToolCheck({
  id: 'I18.error-envelope',
  title: 'errors teach the next call',
  does: 'answers every error path with "Error:" text ending in the JSON of structuredContent, leaking no stack, path, SQL or connection string',
  async run(ctx) {
    const findings = await provokeErrors(ctx);
    const errors = ctx.ledger
      .entries(ctx.tool.name)
      .filter((e) => e.result.isError === true || isErrorShaped(e));
    return [
      ...findings,
      ...judgeAll(errors, (entry) => [
        ...errorEnvelopeFindings(entry.result),
        ...leakFindings(JSON.stringify(entry.result.structuredContent ?? null) + textOfResult(entry.result)),
      ]),
    ];
  },
});

const isErrorShaped = (entry: LedgerEntry) =>
  isPlainObject(entry.result.structuredContent) && entry.result.structuredContent.status === 'error';

/** I19: for every result seen, the text equals structuredContent, which validates against outputSchema. */
export const resultShapeCheck = defineToolCheck({
  id: 'I19.result-shape',
  title: 'text and structured content agree',
  does: 'returns text equal to structuredContent, valid against its outputSchema, in every result seen',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    await client.call(ctx.tool.name, await ctx.sample(ctx.tool));
    await provokeErrors(ctx);
    const schemas = new OutputSchemas();
    return judgeAll(ctx.ledger.entries(ctx.tool.name), (entry) =>
      resultShapeFindings(ctx.tool.name, entry.result, ctx.tool.outputSchema, schemas),
    );
  },
});

/**
 * I19: the advertised outputSchema is one a client can use: an object
 * schema that is valid JSON Schema 2020-12 and compiles, so SDK clients,
 * which validate every result against it, never throw on the schema itself.
 */
export const outputSchemaCheck = defineToolCheck({
  id: 'I19.output-schema',
  title: 'a usable outputSchema',
  does: 'advertises an object outputSchema that is valid JSON Schema 2020-12 and compiles',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const listing = await client.list();
    const tools = Array.isArray(listing.result?.tools) ? listing.result.tools : [];
    const listed = tools.find((t) => isPlainObject(t) && t.name === ctx.tool.name);
    if (!isPlainObject(listed)) return [`${ctx.tool.name} is not in tools/list for its home connection`];
    return outputSchemaFindings(ctx.tool.name, listed.outputSchema);
  },
});
