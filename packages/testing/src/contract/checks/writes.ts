import { isPlainObject } from '../../internal/jsonRpc.js';
import { atPath, withPath } from '../args.js';
import { newAuditRows } from '../auditRows.js';
import {
  allOf,
  defineToolCheck,
  describeReply,
  needs,
  needsSample,
  sampleRefused,
  succeeded,
} from '../check.js';
import type { ContractReply } from '../client.js';
import { errorCode, errorOf } from '../envelope.js';

const resultOf = (reply: ContractReply): unknown =>
  isPlainObject(reply.result?.structuredContent) ? reply.result.structuredContent.result : undefined;

/** Every array inside `value`, at any depth. */
const arraysIn = (value: unknown): unknown[][] =>
  Array.isArray(value)
    ? [value, ...value.flatMap(arraysIn)]
    : isPlainObject(value)
      ? Object.values(value).flatMap(arraysIn)
      : [];

/** I10: the same write re-sent with a new JSON-RPC id runs once and answers `replayed: true`. */
export const replayCheck = defineToolCheck({
  id: 'I10.replay',
  title: 'replay protection',
  does: 'runs once when re-sent with a new JSON-RPC id and answers the second with replayed: true',
  select: (tool, plan) =>
    plan.fixture.capabilities?.replay && tool.effect === 'write' ? needsSample(tool) : 'not-applicable',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const args = await ctx.sample(ctx.tool);
    const first = await client.call(ctx.tool.name, args, { id: 'gh-replay-1' });
    if (!succeeded(first)) return [sampleRefused(ctx.tool, first)];
    const mark = await ctx.mark();
    const second = await client.call(ctx.tool.name, args, { id: 'gh-replay-2' });
    const findings: string[] = [];
    const structured = second.result?.structuredContent;
    if (!succeeded(second) || !isPlainObject(structured) || structured.replayed !== true) {
      findings.push(`the re-sent call was answered with ${describeReply(second)} without replayed: true`);
    }
    for (const change of await ctx.since(mark)) findings.push(`${change} by the re-sent call`);
    return findings;
  },
});

/** I11: a second create with the same business key is a `duplicate` error naming the id and the update tool. */
export const duplicateCheck = defineToolCheck({
  id: 'I11.duplicate',
  title: 'duplicate guard',
  does: 'refuses a second create with the same business key, naming the existing id and the update tool',
  select: (tool) => (tool.fixture.duplicate ? needsSample(tool) : 'not-applicable'),
  async run(ctx) {
    const spec = ctx.tool.fixture.duplicate;
    if (!spec) return [];
    const client = await ctx.as(ctx.host.home);
    const first = await client.call(ctx.tool.name, await ctx.sample(ctx.tool));
    if (!succeeded(first)) return [sampleRefused(ctx.tool, first)];
    const id = atPath(resultOf(first), spec.idPath ?? 'id');
    const mark = await ctx.mark();
    const second = await client.call(ctx.tool.name, await ctx.args(spec.second));
    const findings: string[] = [];
    const said = JSON.stringify(errorOf(second.result) ?? {});
    if (errorCode(second.result) !== 'duplicate') {
      findings.push(`the second create was answered with ${describeReply(second)}, not duplicate`);
    } else {
      if (typeof id !== 'string' || !said.includes(id))
        findings.push('the duplicate error does not name the existing id');
      if (!said.includes(spec.updateTool))
        findings.push(`the duplicate error does not name ${spec.updateTool}`);
    }
    for (const change of await ctx.since(mark)) findings.push(`${change} by the duplicate create`);
    return findings;
  },
});

/** I12: an update with the version read before a change elsewhere answers `conflict` with the current state. */
export const staleVersionCheck = defineToolCheck({
  id: 'I12.stale-version',
  title: 'versions',
  does: 'answers an update with a stale version with conflict and the current version, changing nothing',
  select: (tool, plan) =>
    tool.fixture.version ? allOf(needsSample(tool), needs(plan, 'changeBehindCaller')) : 'not-applicable',
  async run(ctx) {
    const spec = ctx.tool.fixture.version;
    if (!spec) return [];
    const client = await ctx.as(ctx.host.home);
    const read = async () => {
      const reply = await client.call(spec.read.tool, await ctx.args(spec.read.args));
      return atPath(resultOf(reply), spec.path ?? 'version');
    };
    const stale = await read();
    await ctx.host.changeBehindCaller?.(ctx.tool.name);
    const current = await read();
    if (typeof stale !== 'string' || typeof current !== 'string' || stale === current) {
      return [`reading ${spec.read.tool} before and after changeBehindCaller gave no two versions`];
    }
    const args = withPath(await ctx.sample(ctx.tool), spec.argument ?? 'version', stale);
    const mark = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    const findings: string[] = [];
    if (errorCode(reply.result) !== 'conflict') {
      findings.push(`a stale version was answered with ${describeReply(reply)}, not conflict`);
    } else if (!JSON.stringify(errorOf(reply.result)).includes(current)) {
      findings.push('the conflict does not carry the current version');
    }
    for (const change of await ctx.since(mark)) findings.push(`${change} by an update with a stale version`);
    return findings;
  },
});

/** I13: a batch whose filter matches another count than expected lists the matches and runs nothing. */
export const batchCountCheck = defineToolCheck({
  id: 'I13.batch-count',
  title: 'bounded batches',
  does: 'refuses a filter whose match count differs from expected_count, listing the matches, running nothing',
  select: (tool) => (tool.fixture.batch ? 'run' : 'not-applicable'),
  async run(ctx) {
    const spec = ctx.tool.fixture.batch;
    if (!spec) return [];
    const client = await ctx.as(ctx.host.home);
    const args = await ctx.args(spec.mismatch);
    const mark = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    const findings: string[] = [];
    if (errorCode(reply.result) !== 'batch_count_mismatch') {
      findings.push(
        `a wrong expected_count was answered with ${describeReply(reply)}, not batch_count_mismatch`,
      );
    } else if (!arraysIn(errorOf(reply.result)).some((list) => list.length === spec.matches)) {
      findings.push(`the error does not list the ${spec.matches} matches`);
    }
    for (const change of await ctx.since(mark))
      findings.push(`${change} by a batch with a wrong expected_count`);
    return findings;
  },
});

/**
 * I15: every write produces exactly one audit row with channel `mcp`. The
 * call's rows are those `auditRows()` did not return before it, whatever
 * their order.
 */
export const auditCheck = defineToolCheck({
  id: 'I15.audit',
  title: 'audit',
  does: 'writes exactly one audit row with channel mcp per call',
  select: (tool, plan) =>
    plan.fixture.capabilities?.audit && tool.effect === 'write'
      ? allOf(needsSample(tool), needs(plan, 'auditRows'))
      : 'not-applicable',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const args = await ctx.sample(ctx.tool);
    // a copy: a host may hand out its live array (MemoryAuditStore.rows)
    const before = [...((await ctx.host.auditRows?.()) ?? [])];
    const reply = await client.call(ctx.tool.name, args);
    if (!succeeded(reply)) return [sampleRefused(ctx.tool, reply)];
    const rows = newAuditRows(before, (await ctx.host.auditRows?.()) ?? []);
    const findings: string[] = [];
    if (rows.length !== 1) findings.push(`the write produced ${rows.length} audit rows, not 1`);
    for (const row of rows) {
      if (row.channel !== 'mcp')
        findings.push(`an audit row has channel ${JSON.stringify(row.channel)}, not mcp`);
      if (row.connectionId === null || row.connectionId === '')
        findings.push('an audit row has no connection id');
    }
    return findings;
  },
});
