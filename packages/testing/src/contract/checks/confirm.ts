import { isOutward } from '@gatehousejs/core';
import { isPlainObject } from '../../internal/jsonRpc.js';
import { defineToolCheck, describeReply, needsSample, succeeded, type ToolCheckContext } from '../check.js';
import type { ContractClient, ContractReply } from '../client.js';
import { errorCode } from '../envelope.js';

/** The built-in tool that executes a prepared outward action (I9). */
export const CONFIRM_TOOL = 'confirm_action';

interface Preview {
  readonly token: string;
  readonly summary: string;
  /** Set when a person approves the action out of band (I9). */
  readonly pendingActionId?: string;
}

function previewOf(reply: ContractReply): Preview | undefined {
  const s = reply.result?.structuredContent;
  if (!isPlainObject(s) || s.status !== 'PREVIEW') return undefined;
  if (typeof s.confirm_token !== 'string' || typeof s.confirm_summary !== 'string') return undefined;
  const person = s.approval === 'person' && typeof s.pending_action_id === 'string';
  return {
    token: s.confirm_token,
    summary: s.confirm_summary,
    ...(person ? { pendingActionId: s.pending_action_id as string } : {}),
  };
}

/**
 * A person's action (I9): no model call completes it. Every way the model
 * can ask (exact, edited summary, again, another connection's token kept
 * apart) answers without an effect and keeps the action pending; then the
 * person's approval executes it once, and confirm_action tells the model
 * the result as a replay.
 */
async function personFindings(
  ctx: ToolCheckContext,
  client: ContractClient,
  preview: Preview,
): Promise<string[]> {
  const findings: string[] = [];
  const mark = await ctx.mark();
  for (const [label, summary] of [
    ['the exact confirmation', preview.summary],
    ['a confirmation with an edited summary', edited(preview)],
    ['a repeated confirmation', preview.summary],
  ] as const) {
    const reply = await confirm(client, preview, summary);
    if (errorCode(reply.result) !== 'approval_pending')
      findings.push(
        `${label} of a person's action was answered with ${describeReply(reply)}, not approval_pending`,
      );
  }
  for (const change of await ctx.since(mark)) findings.push(`${change} by model calls on a person's action`);
  if (!ctx.host.approveAsPerson) {
    findings.push('the host has no approveAsPerson, so a person action cannot be approved in the suite');
    return findings;
  }
  const beforeApproval = await ctx.mark();
  if (!(await ctx.host.approveAsPerson(preview.pendingActionId!)))
    findings.push("the person's approval did not execute the action");
  if ((await ctx.since(beforeApproval)).length === 0)
    findings.push("the person's approval changed nothing observable");
  const afterApproval = await ctx.mark();
  const learned = await confirm(client, preview);
  const structured = learned.result?.structuredContent;
  if (!succeeded(learned) || !isPlainObject(structured) || structured.replayed !== true)
    findings.push(
      `confirm_action after the approval was answered with ${describeReply(learned)}, not the result replayed`,
    );
  if (await ctx.host.approveAsPerson(preview.pendingActionId!))
    findings.push('a second approval of the same action executed it again');
  for (const change of await ctx.since(afterApproval))
    findings.push(`${change} after the action was approved once`);
  return findings;
}

const confirm = (client: ContractClient, preview: Preview, summary = preview.summary) =>
  client.call(CONFIRM_TOOL, { confirm_token: preview.token, confirm_summary: summary });

/**
 * A misuse of a confirm token on a fresh preview: `first` runs before the
 * effects are marked (a legitimate first use), `act` is the misuse itself.
 * `replayAnswers` accepts the replay stage answering the repeat with the first
 * result (`replayed: true`): nothing runs twice, so single use holds.
 * `code` is the error expected; any `confirm_*` code when absent.
 */
interface Misuse {
  readonly label: string;
  readonly code?: string;
  readonly first?: (client: ContractClient, preview: Preview) => Promise<unknown>;
  readonly replayAnswers?: boolean;
  readonly act: (ctx: ToolCheckContext, client: ContractClient, preview: Preview) => Promise<ContractReply>;
}

const edited = (p: Preview) => `${p.summary} (edited)`;

const MISUSES: readonly Misuse[] = [
  {
    label: 'a wrong summary',
    code: 'confirm_summary_mismatch',
    act: (_ctx, c, p) => confirm(c, p, edited(p)),
  },
  {
    label: 'a token from another connection',
    code: 'confirm_not_found',
    act: async (ctx, _c, p) => confirm(await ctx.as(ctx.host.home), p),
  },
  {
    label: 'a reused token',
    code: 'confirm_used',
    replayAnswers: true,
    first: (c, p) => confirm(c, p),
    act: (_ctx, c, p) => confirm(c, p),
  },
];

async function misuseFindings(
  ctx: ToolCheckContext,
  client: ContractClient,
  misuse: Misuse,
): Promise<string[]> {
  const preview = previewOf(await client.call(ctx.tool.name, await ctx.sample(ctx.tool)));
  if (!preview) return [`${misuse.label}: no preview to misuse`];
  await misuse.first?.(client, preview);
  const mark = await ctx.mark();
  const reply = await misuse.act(ctx, client, preview);
  const code = errorCode(reply.result);
  const findings: string[] = [];
  const replayed =
    isPlainObject(reply.result?.structuredContent) && reply.result.structuredContent.replayed === true;
  if (misuse.replayAnswers && replayed) {
    // the repeat was answered from the replay cache; the effects check below still applies
  } else if (code === undefined || (misuse.code ? code !== misuse.code : !code.startsWith('confirm_'))) {
    findings.push(
      `${misuse.label} was answered with ${describeReply(reply)}, not ${misuse.code ?? 'a confirm_* error'}`,
    );
  }
  for (const change of await ctx.since(mark)) findings.push(`${change} after ${misuse.label}`);
  return findings;
}

async function optionalMisuses(ctx: ToolCheckContext, client: ContractClient): Promise<string[]> {
  const findings: string[] = [];
  const cases: [string, string, (() => Promise<void>) | undefined][] = [
    [
      'an expired token',
      'confirm_expired',
      ctx.host.advanceClock && (() => ctx.host.advanceClock!(86_400_000)),
    ],
    [
      'an edit between the steps',
      'changed_since_preview',
      ctx.host.changeBehindCaller && (() => ctx.host.changeBehindCaller!(ctx.tool.name)),
    ],
  ];
  for (const [label, expected, between] of cases) {
    if (!between) continue;
    const preview = previewOf(await client.call(ctx.tool.name, await ctx.sample(ctx.tool)));
    if (!preview) return [`${label}: no preview`];
    await between();
    const messages = (await ctx.mark()).messages;
    const reply = await confirm(client, preview);
    if (errorCode(reply.result) !== expected)
      findings.push(`${label} was answered with ${describeReply(reply)}, not ${expected}`);
    if ((await ctx.mark()).messages !== messages) findings.push(`a message was sent after ${label}`);
  }
  return findings;
}

/**
 * A confirmation refused after the preview (I9): agent access for the
 * tenant is switched off between the steps, so confirming is refused; once
 * access is back, the token is dead (`confirm_used`) and nothing was sent.
 */
async function refusedConfirmation(ctx: ToolCheckContext, client: ContractClient): Promise<string[]> {
  const label = 'a confirmation refused by the tenant switch';
  const preview = previewOf(await client.call(ctx.tool.name, await ctx.sample(ctx.tool)));
  if (!preview) return [`${label}: no preview`];
  const messages = (await ctx.mark()).messages;
  const tenantId = ctx.host.home.tenantId;
  await ctx.host.setTenantAccess(tenantId, false);
  const refused = await confirm(client, preview);
  await ctx.host.setTenantAccess(tenantId, true);
  const findings: string[] = [];
  if (succeeded(refused)) findings.push(`${label} was answered with ${describeReply(refused)}`);
  const again = await confirm(client, preview);
  if (errorCode(again.result) !== 'confirm_used')
    findings.push(`the token of ${label} was answered with ${describeReply(again)} later, not confirm_used`);
  if ((await ctx.mark()).messages !== messages) findings.push(`a message was sent after ${label}`);
  return findings;
}

/** I9: an outward tool only prepares; only an exact, fresh, own, unused confirmation executes. */
export const confirmCheck = defineToolCheck({
  id: 'I9.confirm',
  title: 'two-step outward effects',
  does: 'previews without sending, executes only through confirm_action, and refuses every token misuse',
  select: (tool, plan) =>
    plan.fixture.capabilities?.confirm && isOutward(tool.effect) ? needsSample(tool) : 'not-applicable',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const mark = await ctx.mark();
    const preview = previewOf(await client.call(ctx.tool.name, await ctx.sample(ctx.tool)));
    const findings: string[] = [];
    if (!preview) return ['the first call returned no PREVIEW with confirm_token and confirm_summary'];
    for (const change of await ctx.since(mark)) findings.push(`${change} by the preview alone`);
    if (preview.pendingActionId) return [...findings, ...(await personFindings(ctx, client, preview))];
    const beforeConfirm = await ctx.mark();
    const executed = await confirm(client, preview);
    if (!succeeded(executed))
      findings.push(`the exact confirmation was answered with ${describeReply(executed)}`);
    if ((await ctx.since(beforeConfirm)).length === 0)
      findings.push('the confirmation changed nothing observable');
    for (const misuse of MISUSES) findings.push(...(await misuseFindings(ctx, client, misuse)));
    findings.push(...(await optionalMisuses(ctx, client)));
    findings.push(...(await refusedConfirmation(ctx, client)));
    return findings;
  },
});
