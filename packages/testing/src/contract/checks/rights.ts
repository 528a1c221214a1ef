import { isPlainObject } from '../../internal/jsonRpc.js';
import { defineServerCheck, defineToolCheck, describeReply, succeeded } from '../check.js';
import type { ContractReply } from '../client.js';
import { errorCode, errorOf } from '../envelope.js';

const listedNames = (reply: ContractReply): string[] => {
  const tools = reply.result?.tools;
  return Array.isArray(tools) ? tools.filter(isPlainObject).map((t) => String(t.name)) : [];
};

/** I4: removing the creator's role refuses a write on the very next call and unlists the tool. */
export const roleRemovedCheck = defineToolCheck({
  id: 'I4.role-removed',
  title: 'live rights',
  does: "is refused on the very next call after the creator's role is removed, and is listed no more when it needs the lost right",
  select: (tool) => (tool.effect === 'read' ? 'not-applicable' : 'run'),
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const findings: string[] = [];
    const primed = await client.list();
    if (!listedNames(primed).includes(ctx.tool.name)) {
      findings.push(`${ctx.tool.name} is not listed for the creator before the role is removed`);
    }
    await ctx.host.removeRole(ctx.host.home);
    const args = await ctx.sample(ctx.tool);
    const mark = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    if (succeeded(reply)) findings.push('the call still ran after the creator’s role was removed');
    for (const change of await ctx.since(mark)) findings.push(`${change} after the role was removed`);
    const listed = listedNames(await client.list()).includes(ctx.tool.name);
    if (errorCode(reply.result) === 'missing_right' && listed) {
      findings.push('tools/list still shows the tool whose right was removed');
    }
    return findings;
  },
});

/** I4: deactivating the creator ends the connection: 401 on every request, nothing runs. */
export const deactivatedCheck = defineServerCheck({
  id: 'I4.deactivated',
  title: 'live rights',
  does: 'answers 401 to every request once the creator is deactivated, and runs nothing',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const findings: string[] = [];
    if ((await client.list()).status !== 200) findings.push('tools/list failed before the deactivation');
    await ctx.host.deactivate(ctx.host.home);
    const listed = await client.list();
    if (listed.status !== 401)
      findings.push(`tools/list was answered with ${describeReply(listed)}, not 401`);
    const mark = await ctx.mark();
    for (const tool of ctx.plan.tools) {
      const reply = await client.call(tool.name, await ctx.sample(tool));
      if (reply.status !== 401)
        findings.push(`${tool.name} was answered with ${describeReply(reply)}, not 401`);
    }
    for (const change of await ctx.since(mark)) findings.push(`${change} after the creator was deactivated`);
    return findings;
  },
});

const REASONED = new Set(['tool_hidden', 'missing_right']);

/** I7: the limited grant must hide something, or the visibility check cannot fail. */
export const limitedGrantCheck = defineServerCheck({
  id: 'I7.limited-grant',
  title: 'tool visibility',
  does: "hides at least one tool from the fixture's limited grant",
  select: (plan) => (plan.fixture.limited ? 'run' : { skip: 'the fixture gives no limited grant' }),
  async run(ctx) {
    return ctx.plan.tools.some((t) => t.hiddenWhenLimited)
      ? []
      : ['the limited grant hides no tool, so hidden tools cannot be checked'];
  },
});

/** I7: a hidden tool, called anyway, answers with its reason and does not run. */
export const hiddenToolCheck = defineToolCheck({
  id: 'I7.hidden-tool',
  title: 'tool visibility',
  does: 'answers a call from a connection it is hidden from with the reason, and does not run',
  select: (tool) => (tool.hiddenWhenLimited ? 'run' : 'not-applicable'),
  async run(ctx) {
    const client = await ctx.as(ctx.host.home, ctx.plan.fixture.limited);
    const args = await ctx.sample(ctx.tool);
    const mark = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    const findings: string[] = [];
    const code = errorCode(reply.result);
    if (code === undefined || !REASONED.has(code)) {
      findings.push(
        `the hidden tool was answered with ${describeReply(reply)}, not tool_hidden or missing_right`,
      );
    } else if (String(errorOf(reply.result)?.message ?? '').trim() === '') {
      findings.push('the refusal of the hidden tool gives no reason');
    }
    for (const change of await ctx.since(mark)) findings.push(`${change} by a call to a hidden tool`);
    return findings;
  },
});
