import { isPlainObject } from '../../internal/jsonRpc.js';
import { toolResultText } from '../../toolResult.js';
import { withPath } from '../args.js';
import { defineToolCheck, describeReply, needsSample, sampleRefused, succeeded } from '../check.js';

/** The name of the extra argument the I14 and I18 checks send. */
export const UNKNOWN_ARGUMENT = 'gh_unknown_field';

/** I8: `read` and `write` tools send no message; `read` tools change no row. */
export const silentEffectCheck = defineToolCheck({
  id: 'I8.silent-effects',
  title: 'effect classes',
  does: 'sends no message (and, as a read, changes no row) when it runs',
  select: (tool) =>
    tool.effect === 'read' || tool.effect === 'write' ? needsSample(tool) : 'not-applicable',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const args = await ctx.sample(ctx.tool);
    const before = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    if (!succeeded(reply)) return [sampleRefused(ctx.tool, reply)];
    const after = await ctx.mark();
    const findings: string[] = [];
    if (after.messages !== before.messages) {
      findings.push(`a ${ctx.tool.effect} tool sent ${after.messages - before.messages} message(s)`);
    }
    if (ctx.tool.effect === 'read' && after.rows !== before.rows) findings.push('a read tool changed rows');
    return findings;
  },
});

/**
 * What is wrong with a refusal of an unknown argument (I14), given the
 * refusal as text (the structured error, a tool error's text or a JSON-RPC
 * error): it must name `field` and list every argument the input schema allows.
 */
export function unknownArgumentFindings(said: string, inputSchema: unknown, field: string): string[] {
  const schema = isPlainObject(inputSchema) ? inputSchema : {};
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const missing = Object.keys(properties).filter(
    (name) => !said.includes(`"${name}"`) && !said.includes(`'${name}'`),
  );
  const findings: string[] = [];
  if (!said.includes(field)) findings.push('the refusal does not name the unknown field');
  if (missing.length > 0) findings.push(`the refusal does not list the allowed ${missing.join(', ')}`);
  return findings;
}

/** I14: an unknown argument is refused with the allowed list, and nothing is written. */
export const unknownArgumentsCheck = defineToolCheck({
  id: 'I14.unknown-arguments',
  title: 'unknown arguments',
  does: 'refuses an extra field with the allowed list and writes nothing',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const args = { ...(await ctx.sample(ctx.tool)), [UNKNOWN_ARGUMENT]: 'contract probe' };
    const mark = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    const findings: string[] = [];
    if (reply.result?.isError !== true) {
      findings.push(`an extra field was answered with ${describeReply(reply)}, not a tool error`);
    } else {
      const said = JSON.stringify(reply.result.structuredContent ?? toolResultText(reply.result));
      findings.push(...unknownArgumentFindings(said, ctx.tool.inputSchema, UNKNOWN_ARGUMENT));
    }
    for (const change of await ctx.since(mark)) findings.push(`${change} by a call with an unknown field`);
    return findings;
  },
});

const GAP = '2026-03-29T02:30';
const OVERLAP = '2026-10-25T02:30';
const ZONE = 'Europe/Berlin';

/** I20: a local time in the DST gap is refused; one in the overlap is refused with both offsets. */
export const daylightSavingCheck = defineToolCheck({
  id: 'I20.dst',
  title: 'time',
  does: `refuses ${GAP} ${ZONE} (gap) and lists +02:00 and +01:00 for ${OVERLAP} (overlap), writing nothing`,
  select: (tool) => (tool.fixture.time ? needsSample(tool) : 'not-applicable'),
  async run(ctx) {
    const time = ctx.tool.fixture.time;
    if (!time) return [];
    const render = time.value ?? ((local: string, zone: string) => ({ local, zone }));
    const client = await ctx.as(ctx.host.home);
    const sample = await ctx.sample(ctx.tool);
    const findings: string[] = [];
    for (const [label, local] of [
      ['gap', GAP],
      ['overlap', OVERLAP],
    ] as const) {
      const mark = await ctx.mark();
      const reply = await client.call(ctx.tool.name, withPath(sample, time.argument, render(local, ZONE)));
      if (reply.result?.isError !== true) {
        findings.push(`${local} ${ZONE} (${label}) was answered with ${describeReply(reply)}, not refused`);
      } else if (label === 'overlap') {
        const text = toolResultText(reply.result);
        const missing = ['+02:00', '+01:00'].filter((offset) => !text.includes(offset));
        if (missing.length > 0) findings.push(`the overlap refusal does not offer ${missing.join(' and ')}`);
      }
      for (const change of await ctx.since(mark)) findings.push(`${change} by a call at ${local} (${label})`);
    }
    const valid = await client.call(ctx.tool.name, sample);
    if (!succeeded(valid)) findings.push(sampleRefused(ctx.tool, valid));
    return findings;
  },
});
