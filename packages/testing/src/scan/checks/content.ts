import { wrongTypeFor } from '../../contract/checks/envelope.js';
import { descriptionFindings } from '../../contract/descriptionLint.js';
import {
  errorEnvelopeFindings,
  leakFindings,
  OutputSchemas,
  outputSchemaFindings,
  resultShapeFindings,
} from '../../contract/envelope.js';
import { isPlainObject } from '../../internal/jsonRpc.js';
import { toolResultText } from '../../toolResult.js';
import { defineScanCheck, type Judged, notApplicable, perTool, undetermined } from '../check.js';
import type { CallRecord, ScanContext } from '../context.js';
import { isRateLimited } from '../exchange.js';
import type { ScanTool } from '../types.js';

/** I16: descriptions describe their tool: no instructions to the model, hidden characters or other tools. */
export const descriptionsCheck = defineScanCheck({
  id: 'I16.descriptions',
  title: 'descriptions',
  does: 'reads each tool’s description, title and argument descriptions: no instructions to the model, no hidden characters, no other tool named',
  run: (ctx) => {
    const names = ctx.tools.map((t) => t.name);
    return perTool(ctx, (tool) => ({ findings: descriptionFindings(tool, names) }));
  },
});

/** I19: an advertised outputSchema is an object schema a client can compile. */
export const outputSchemaCheck = defineScanCheck({
  id: 'I19.output-schema',
  title: 'a usable outputSchema',
  does: 'reads each advertised outputSchema: an object schema, valid JSON Schema 2020-12, that compiles',
  run: (ctx) =>
    perTool(ctx, (tool) =>
      tool.outputSchema === undefined
        ? notApplicable('the tool advertises no outputSchema')
        : { findings: outputSchemaFindings(tool.name, tool.outputSchema) },
    ),
});

/** The text of a call's answer as the model would read it: the tool result's text, or the JSON-RPC error. */
function answerText(call: CallRecord): string | undefined {
  const { result, error } = call.exchange;
  if (result !== undefined) {
    try {
      return `${toolResultText(result)}\n${JSON.stringify(result.structuredContent ?? null)}`;
    } catch {
      return JSON.stringify(result);
    }
  }
  return error === undefined ? undefined : JSON.stringify(error);
}

const isErrorAnswer = (call: CallRecord) =>
  call.exchange.error !== undefined || call.exchange.result?.isError === true || call.exchange.status >= 500;

/** Judges `calls`; repeated findings are counted once, evidence is the first call behind each. */
function judgeCalls(
  ctx: ScanContext,
  calls: readonly CallRecord[],
  judge: (call: CallRecord) => string[],
): Judged {
  const counts = new Map<string, { n: number; call: CallRecord }>();
  for (const call of calls) {
    for (const finding of judge(call)) {
      const held = counts.get(finding);
      counts.set(finding, { n: (held?.n ?? 0) + 1, call: held?.call ?? call });
    }
  }
  const findings = [...counts].map(([finding, { n }]) => (n > 1 ? `${finding} (${n} answers)` : finding));
  const shown = counts.size > 0 ? [...counts.values()].map((v) => v.call) : calls;
  return { findings, evidence: [...new Set(shown)].slice(0, 3).map((call) => ctx.evidence(call.exchange)) };
}

/** Judges every error answer sent so far to `tool`; undetermined when there was none. */
function judgeErrors(ctx: ScanContext, tool: ScanTool, judge: (call: CallRecord) => string[]): Judged {
  const errors = ctx.calls(tool.name).filter(isErrorAnswer);
  if (errors.length === 0) return undetermined('no call to this tool was answered with an error');
  return judgeCalls(ctx, errors, judge);
}

/** Calls that make a handler fail: a declared argument of the wrong type, and the fixture's arguments made odd. */
async function provokeErrors(ctx: ScanContext, tool: ScanTool): Promise<void> {
  await ctx.memo(`provoke:${tool.name}`, async () => {
    const properties = isPlainObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
    const typed = Object.entries(properties).find(([, schema]) => wrongTypeFor(schema) !== undefined);
    if (typed) {
      const [name, schema] = typed;
      await ctx.call(
        tool.name,
        { [name]: wrongTypeFor(schema) ?? null },
        { note: `(${name} of the wrong type)` },
      );
    }
    const valid = ctx.validArgs(tool);
    const odd = 'args' in valid ? oddArguments(valid.args) : undefined;
    if (odd) await ctx.call(tool.name, odd, { note: "(the fixture's arguments with an odd string)" });
  });
}

/** Text that trips naive handlers: quotes, SQL comment, format directives, a template, a path, a NUL. */
const ODD = 'gh-scan\' "); -- %s %n {{7*7}} ../../../etc/passwd \u0000';

/** The fixture's arguments with their first string replaced by {@link ODD}. */
function oddArguments(args: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const entry = Object.entries(args).find(([, value]) => typeof value === 'string');
  return entry ? { ...args, [entry[0]]: ODD } : undefined;
}

/** I18: no error answer shows a stack, a path, SQL, a connection string or a raw exception message. */
export const errorLeaksCheck = defineScanCheck({
  id: 'I18.error-leaks',
  title: 'errors leak nothing',
  does: 'judges every error answer the scan provoked (wrong types, unknown fields; with --allow-calls odd strings in valid calls): no stack frame, file path, SQL, connection string or raw exception message',
  run: (ctx) =>
    perTool(ctx, async (tool) => {
      await provokeErrors(ctx, tool);
      return judgeErrors(ctx, tool, (call) => leakFindings(answerText(call) ?? call.exchange.text));
    }),
});

/** I18: refusals of arguments are tool errors in the "Error:" envelope, so the model can correct its call. */
export const errorEnvelopeCheck = defineScanCheck({
  id: 'I18.error-envelope',
  title: 'errors teach the next call',
  does: 'judges every error answer: invalid arguments answered as a tool error (isError: true) whose text starts with "Error:" and ends with the JSON of structuredContent',
  run: (ctx) =>
    perTool(ctx, async (tool) => {
      await provokeErrors(ctx, tool);
      return judgeErrors(ctx, tool, (call) => {
        const { result, error } = call.exchange;
        // the quoted text makes each finding unique; the evidence shows it
        if (result?.isError === true)
          return errorEnvelopeFindings(result).map((f) => f.replace(/: [\s\S]*$/, ''));
        if (error !== undefined && call.exchange.status === 200) {
          return [
            `a call with arguments it refused was answered with JSON-RPC error ${error.code}, not a tool error (isError: true) the model can read`,
          ];
        }
        return [];
      });
    }),
});

/** I19: a result's text carries the JSON of structuredContent, which validates against the outputSchema. */
export const resultShapeCheck = defineScanCheck({
  id: 'I19.result-shape',
  title: 'text and structured content agree',
  does: 'judges every result seen (with --allow-calls, a valid call too): its text is the JSON of structuredContent, valid against the outputSchema',
  run: (ctx) =>
    perTool(ctx, async (tool) => {
      const valid = await ctx.validCall(tool);
      const results = ctx
        .calls(tool.name)
        .filter((call) => call.exchange.result !== undefined && !isRateLimited(call.exchange));
      const structured = results.filter(
        (call) => tool.outputSchema !== undefined || call.exchange.result?.structuredContent !== undefined,
      );
      const succeeded = results.some((call) => call.exchange.result?.isError !== true);
      const schemas = new OutputSchemas();
      const judged = judgeCalls(ctx, structured, (call) =>
        resultShapeFindings(tool.name, call.exchange.result ?? {}, tool.outputSchema, schemas),
      );
      if ((judged.findings?.length ?? 0) > 0) return judged;
      if (!succeeded) {
        const why = 'reason' in valid ? valid.reason : 'the valid call did not succeed';
        return undetermined(`no successful result to compare: ${why}`, judged);
      }
      if (structured.length === 0)
        return notApplicable('no outputSchema and no structuredContent: the tool answers in text only');
      return { evidence: judged.evidence ?? [] };
    }),
});
