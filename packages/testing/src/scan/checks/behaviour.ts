import { stableJson } from '../../contract/observe.js';
import { isPlainObject } from '../../internal/jsonRpc.js';
import { toolResultText } from '../../toolResult.js';
import { defineScanCheck, notApplicable, perTool, undetermined } from '../check.js';
import { describeOutcome, type Exchange, isRateLimited } from '../exchange.js';

/** A time relative to now ("49 seconds ago", "in 3 days", "just now"), which moves between two calls on its own. */
const RELATIVE_TIME =
  /\b(?:in )?(?:an?|\d+) (?:second|minute|hour|day|week|month|year)s?(?: ago)?\b|\bjust now\b/gi;

/** What a result says: its structured content, else the JSON its text carries, else its content. */
function answerValue(exchange: Exchange): unknown {
  const result = exchange.result;
  if (result?.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(toolResultText(result));
  } catch {
    return result?.content ?? exchange.error ?? null;
  }
}

/** {@link answerValue} as stable JSON with relative times masked, for comparing two answers. */
const said = (exchange: Exchange) =>
  stableJson(answerValue(exchange)).replace(RELATIVE_TIME, '<relative time>');

/** The first path at which two JSON values differ, for a finding. */
function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (stableJson(a[key]) !== stableJson(b[key]))
        return firstDifference(a[key], b[key], path ? `${path}.${key}` : key);
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    const index = a.findIndex((item, i) => stableJson(item) !== stableJson(b[i]));
    if (index >= 0) return firstDifference(a[index], b[index], `${path}[${index}]`);
  }
  return path || '(the whole result)';
}

const succeeded = (exchange: Exchange) =>
  exchange.failure === undefined && exchange.result !== undefined && exchange.result.isError !== true;

/** I8: a tool hinted read-only answers a repeated call the same (its first call changed nothing it reads). */
export const readOnlyRepeatCheck = defineScanCheck({
  id: 'I8.read-only-repeat',
  title: 'read-only hints hold',
  does: 'with --allow-calls, calls each tool hinted read-only twice with the fixture’s arguments: both answers must be equal (times relative to now aside)',
  run: (ctx) =>
    perTool(ctx, async (tool) => {
      if (!tool.readOnly) return notApplicable('the tool is not hinted read-only');
      const first = await ctx.validCall(tool);
      if ('reason' in first) return undetermined(first.reason);
      if (!succeeded(first)) {
        return undetermined(`the fixture's arguments were answered with ${describeOutcome(first)}`, {
          evidence: [ctx.evidence(first)],
        });
      }
      const second = await ctx.call(tool.name, ctx.settings.fixture?.tools[tool.name]?.arguments ?? {}, {
        valid: true,
        note: '(again)',
      });
      const evidence = [ctx.evidence(first), ctx.evidence(second)];
      if (isRateLimited(second)) return undetermined('the repeated call was rate-limited', { evidence });
      if (said(first) === said(second)) return { evidence };
      const a: unknown = JSON.parse(said(first));
      const b: unknown = JSON.parse(said(second));
      return {
        evidence,
        findings: [
          `a tool hinted read-only answered a repeated call differently, first at ${firstDifference(a, b)}: its first call changed what it reads`,
        ],
      };
    }),
});

const CONFIRM_KEYS =
  /^(confirm_?token|confirmation_?token|confirm_?summary|approval_?url|pending_?action_?id)$/i;
const PREVIEW_STATES =
  /^(preview|pending|pending_approval|approval_pending|awaiting_confirmation|needs_confirmation)$/i;

/** True when a result asks for a second step: a confirm token, a preview, a pending approval, or an elicitation. */
export function asksForConfirmation(result: Readonly<Record<string, unknown>> | undefined): boolean {
  if (result === undefined) return false;
  if (result.resultType === 'input_required' || isPlainObject(result.inputRequests)) return true;
  const seen = (value: unknown, depth = 0): boolean => {
    if (depth > 6 || !isPlainObject(value)) return false;
    return Object.entries(value).some(
      ([key, child]) =>
        CONFIRM_KEYS.test(key) ||
        (key === 'status' && typeof child === 'string' && PREVIEW_STATES.test(child)) ||
        seen(child, depth + 1),
    );
  };
  let text: unknown;
  try {
    const content = Array.isArray(result.content) ? result.content : [];
    const first = content.find((item) => isPlainObject(item) && item.type === 'text') as
      | { text?: string }
      | undefined;
    text = first?.text === undefined ? undefined : JSON.parse(first.text);
  } catch {
    text = undefined;
  }
  return seen(result.structuredContent) || seen(text);
}

/** I9: a tool whose hints say it may destroy or act outward only prepares: its first call asks for confirmation. */
export const twoStepCheck = defineScanCheck({
  id: 'I9.two-step',
  title: 'outward effects take two steps',
  does: 'with --allow-calls and --allow-writes, calls each destructive or open-world tool once with the fixture’s arguments: the answer must be a preview or a confirmation request, not the act',
  run: (ctx) =>
    perTool(ctx, async (tool) => {
      if (!tool.outward) return notApplicable('its hints say it neither destroys nor reaches outside');
      if (tool.confirmStep) return notApplicable('it takes a confirm_token: it is the second step');
      const call = await ctx.validCall(tool);
      if ('reason' in call) return undetermined(call.reason);
      const evidence = [ctx.evidence(call)];
      if (asksForConfirmation(call.result)) return { evidence };
      if (!succeeded(call))
        return undetermined(`the fixture's arguments were answered with ${describeOutcome(call)}`, {
          evidence,
        });
      return {
        evidence,
        findings: [
          'a destructive or open-world tool acted in one call: the result carries no preview, confirm token or approval step',
        ],
      };
    }),
});
