import type { Connection } from '../context.js';
import type { ToolCall } from '../contract/call.js';
import { type Outcome, refuse } from '../contract/outcome.js';
import type { ClaimedAction, PendingAction } from '../contract/pending.js';
import { isOutage, ToolError, type ToolErrorInit } from '../errors.js';
import { digest } from '../hashing.js';
import { contentDigest } from '../internal/contentDigest.js';
import { newId } from '../internal/ids.js';
import type { Json, JsonObject } from '../json.js';
import { type ApprovedRun, ContentChanged, type RunnerParts } from './calls.js';
import type { HeldClaim } from './claim.js';
import type { CompiledTool } from './compile.js';
import { prepareTool } from './execute.js';
import { type OutwardStage, oneLine, USED_WHILE_RUNNING } from './outward.js';
import type { Routes } from './routes.js';
import { byOk, type Trace, tracer, UnitRefusal } from './trace.js';

const NOT_SERVED = (tool: string): ToolErrorInit => ({
  code: 'not_found',
  message: `The tool ${tool} is no longer served.`,
  fix: 'Call tools/list.',
});

const DECIDED: ToolErrorInit = {
  code: 'confirm_used',
  message: 'This action was already decided, or is being decided by another request.',
  fix: 'Reload the page to see where it stands.',
};

const untraced = tracer(undefined);

/**
 * The routes of a pending action (I9): `confirm_action`, `reject_action`, a
 * retried call with request state, and a person's decision on the host's
 * page. Every refusal after the token is known is settled by the I9 table
 * ({@link OutwardStage.settle}); what runs goes through the shared executor.
 */
export function createPendingRoutes<TRight extends string, TServices>(
  parts: RunnerParts<TRight, TServices>,
  routes: Routes<TRight, TServices>,
) {
  const { tools, host } = parts;
  const outwardOf = (): OutwardStage => {
    if (!parts.outward) throw new Error('The two-step flow without an outward guard.');
    return parts.outward;
  };
  const previewed = (name: string) => {
    const compiled = tools.get(name);
    return compiled?.route === 'preview' ? compiled : undefined;
  };

  /** The content changed: the old token dies and a renewed preview comes back, both committed on their own. */
  async function changedSincePreview(
    compiled: CompiledTool<TRight, TServices>,
    target: ToolCall,
    action: PendingAction,
    trace: Trace,
  ): Promise<Outcome> {
    await outwardOf().settle(action, 'changed', 'changed_since_preview');
    const renewed = await routes.preview(compiled, target, trace);
    if (renewed.kind !== 'preview') return renewed;
    return refuse({
      code: 'changed_since_preview',
      message: `What ${compiled.tool.name} would send changed since the preview; nothing was sent and the old token is dead.`,
      fix: 'Review the new preview in details.preview and confirm it with its own token.',
      next: { tool: 'confirm_action', arguments: renewed.preview.next as JsonObject },
      details: { preview: renewed.preview },
    });
  }

  /** `confirm_action` once this call holds the action's claim: the standing checks again, then the unit. */
  async function confirmClaimed(
    action: ClaimedAction,
    call: ToolCall,
    trace: Trace,
    notes: string[],
    held: HeldClaim | undefined,
  ): Promise<Outcome> {
    const outward = outwardOf();
    const compiled = previewed(action.tool);
    if (!compiled) {
      await outward.kill(action);
      return refuse(NOT_SERVED(action.tool));
    }
    const target: ToolCall = {
      ...call,
      tool: compiled.guarded,
      input: await compiled.tool.runtime.input.parse(action.arguments),
      arguments: action.arguments,
      guardArguments: {},
      context: {},
    };
    // the switch may have turned while the action was opened: decide again, with the prepared tool
    const standing = await routes.standing(compiled, target, trace);
    if (standing) {
      await outward.settle(action, standing.stage, standing.error.code);
      return refuse(standing.error);
    }
    try {
      const run = {
        shownHash: action.contentHash,
        note: [`confirmed ${action.id}`, ...notes].join('; '),
        markExecuted: async (unit: unknown) => {
          if (!(await outward.markExecuted(action, unit))) throw new UnitRefusal(USED_WHILE_RUNNING);
        },
        audited: call,
        held,
        notes,
      };
      const { outcome, stage } = await routes.executePending(compiled, target, action, run, trace);
      if (outcome.kind === 'refused') await outward.settle(action, stage, outcome.error.code);
      return outcome;
    } catch (error) {
      if (error instanceof ContentChanged) return changedSincePreview(compiled, target, action, trace);
      await outward.settle(action, 'run', isOutage(error) ? error.code : 'internal_error');
      throw error;
    }
  }

  /** `confirm_action` (I9): the action of this connection's token, checked and claimed in the order of the I9 table, then run. */
  async function confirm(
    call: ToolCall,
    trace: Trace,
    notes: string[],
    held: HeldClaim | undefined,
  ): Promise<Outcome> {
    const outward = outwardOf();
    const { confirm_token: token, confirm_summary: summary } = call.input as {
      confirm_token: string;
      confirm_summary: string;
    };
    const found = await trace('confirm', () => outward.find(token, call), byOk);
    if (!found.ok) {
      if (found.action) await outward.settle(found.action, 'outward', found.error.code);
      return refuse(found.error);
    }
    if (found.action.approval === 'person') {
      // no model call completes a person's action: it learns the outcome, nothing runs here
      const answer = outward.personAnswer(found.action, parts.approval?.url ?? (() => ''));
      if (answer.kind === 'result' && held) await held.guard.release(held.claim);
      return answer;
    }
    const claimed = await trace(
      'confirm',
      async () => {
        const refused = outward.refusalOf(found.action, summary);
        return refused
          ? { ok: false as const, error: refused, action: found.action }
          : outward.claim(found.action, token);
      },
      byOk,
    );
    if (!claimed.ok) {
      if (claimed.action) await outward.settle(claimed.action, 'outward', claimed.error.code);
      return refuse(claimed.error);
    }
    const stop = outward.keepAlive(claimed.action);
    try {
      return await confirmClaimed(claimed.action, call, trace, notes, held);
    } finally {
      stop();
    }
  }

  /** `reject_action`: open the action outside any unit (refusals settled by the table), then close it with its audit row. */
  async function reject(
    call: ToolCall,
    trace: Trace,
    notes: string[],
    held: HeldClaim | undefined,
  ): Promise<Outcome> {
    const outward = outwardOf();
    const { confirm_token: token, reason } = call.input as { confirm_token: string; reason?: string };
    const opened = await trace(
      'confirm',
      async () => {
        const found = await outward.find(token, call);
        if (!found.ok) return found;
        const refused = outward.refusalOf(found.action);
        return refused ? { ok: false as const, error: refused, action: found.action } : found;
      },
      byOk,
    );
    if (!opened.ok) {
      if (opened.action) await outward.settle(opened.action, 'outward', opened.error.code);
      return refuse(opened.error);
    }
    const { action } = opened;
    if (reason) notes.push(`reason: ${oneLine(reason).slice(0, 200)}`);
    return routes.inUnit(
      call,
      trace,
      async (unit) => {
        if (!(await outward.markRejected(action, unit)))
          throw new UnitRefusal({ ...USED_WHILE_RUNNING, message: 'This action can no longer be rejected.' });
        const data = { rejected: action.tool, pending_action_id: action.id, id: action.id };
        const note = notes.join('; ') || undefined;
        const objectIds = await routes.finish(call, held, call.tool.name, data, data, note, unit);
        return { kind: 'result', data, objectIds };
      },
      () => undefined,
    );
  }

  /** A fresh call of `action`'s tool for its requesting credential as it stands now. */
  const freshTarget = (
    compiled: CompiledTool<TRight, TServices>,
    action: PendingAction,
    connection: Connection,
  ) =>
    routes.targetOf(compiled, action, connection, {
      requestId: undefined,
      correlationId: newId(),
      signal: new AbortController().signal,
      note: () => undefined,
      now: host.clock(),
    });

  /**
   * A retried call with request state (2026-07-28): where the person's
   * action it names stands. The state is only an id; it must be this
   * connection's action of this tool with these arguments, so a forged or
   * foreign one learns nothing and runs nothing.
   */
  async function retried(
    compiled: CompiledTool<TRight, TServices>,
    call: ToolCall,
    state: string,
  ): Promise<Outcome> {
    const foreign = refuse({
      code: 'confirm_not_found',
      message: 'The request state names no pending action of this call on this connection.',
      fix: `Call ${compiled.tool.name} again without request state for a new preview.`,
    });
    const outward = parts.outward;
    const findById = outward?.guard.findById;
    if (!outward || !parts.approval || !findById || state.length > 100) return foreign;
    const action = await findById(state);
    const ours =
      action?.approval === 'person' &&
      action.connectionId === call.connection.connectionId &&
      action.tenantId === call.connection.tenantId &&
      action.tool === compiled.tool.name &&
      action.argumentsDigest === digest(call.arguments);
    if (!action || !ours) return foreign;
    return outward.personAnswer(action, parts.approval.url, 'tool');
  }

  /**
   * A person's action prepared afresh for its approver's page, with the
   * requesting credential's live standing: what would go out if approved now.
   */
  async function prepareApproved(
    action: PendingAction,
    connection: Connection<TRight>,
  ): Promise<{ readonly content: Json; readonly contentHash: string } | { readonly error: ToolErrorInit }> {
    const compiled = previewed(action.tool);
    if (!compiled) return { error: NOT_SERVED(action.tool) };
    const target = await freshTarget(compiled, action, connection);
    const standing = await routes.standing(compiled, target, untraced);
    if (standing) return { error: standing.error };
    const scope = routes.servicesFor(compiled, target, undefined);
    try {
      const refused = await routes.runUnitGuards(compiled, target, scope, untraced);
      if (refused) return { error: refused };
      const prepared = await prepareTool(compiled.tool, target, scope);
      return { content: prepared.content, contentHash: contentDigest(prepared.content) };
    } catch (error) {
      await routes.recordViolation(target, scope);
      if (ToolError.is(error)) return { error };
      throw error;
    }
  }

  /** A person's approval once it holds the action's claim: the unit, then the marks its outcome calls for. */
  async function approveClaimed(
    compiled: CompiledTool<TRight, TServices>,
    target: ToolCall,
    action: ClaimedAction,
    approverId: string,
    shownHash: string,
  ): Promise<ApprovedRun> {
    const outward = outwardOf();
    try {
      const run = {
        shownHash,
        note: `approved ${action.id} by ${approverId}`,
        markExecuted: async (unit: unknown, kept: JsonObject) => {
          const set = {
            result: kept,
            decidedBy: approverId,
            decidedAt: host.clock().getTime(),
            fence: action.fence,
          };
          if (!(await outward.guard.mark(action, ['claimed'], 'executed', { unit, set })))
            throw new UnitRefusal(DECIDED);
        },
      };
      const { outcome, stage } = await routes.executePending(compiled, target, action, run, untraced);
      if (outcome.kind === 'refused') {
        await outward.settle(action, stage, outcome.error.code);
        return { kind: 'refused', error: outcome.error };
      }
      return { kind: 'executed', result: (outcome as { data: JsonObject }).data };
    } catch (error) {
      if (error instanceof ContentChanged) {
        // the person sees the new content and may approve that: the action stays open
        await outward.release(action);
        return { kind: 'changed', ...error.changed };
      }
      await outward.settle(action, 'run', isOutage(error) ? error.code : 'internal_error');
      if (isOutage(error)) return { kind: 'refused', error };
      throw error;
    }
  }

  /**
   * A person's approval executes (I9): the confirm stages with the
   * requesting credential's live standing, a single-use claim, a fresh
   * preparation compared with what the person was shown, then run, the
   * executed mark with the stored result, and an audit row naming the
   * credential and the approver.
   */
  async function runApproved(
    action: PendingAction,
    connection: Connection<TRight>,
    approverId: string,
    shownHash: string,
  ): Promise<ApprovedRun> {
    const outward = outwardOf();
    const compiled = previewed(action.tool);
    if (!compiled) {
      await outward.kill(action);
      return { kind: 'refused', error: NOT_SERVED(action.tool) };
    }
    const target = await freshTarget(compiled, action, connection);
    const standing = await routes.standing(compiled, target, untraced);
    if (standing) {
      // not claimed yet: the table decides (an outage leaves the action as it was)
      await outward.settle(action, standing.stage, standing.error.code);
      return { kind: 'refused', error: standing.error };
    }
    const claimed = await outward.claimFor(action, ['pending']);
    if (!claimed) return { kind: 'refused', error: DECIDED };
    const stop = outward.keepAlive(claimed);
    try {
      return await approveClaimed(compiled, target, claimed, approverId, shownHash);
    } finally {
      stop();
    }
  }

  /**
   * A person's rejection: the action closes for good, with its audit row, in
   * one unit of work. It claims the action first (taking over a lapsed
   * claim), so a rejection never lands on an approval still running.
   */
  async function rejectApproved(
    action: PendingAction,
    connection: Connection<TRight>,
    approverId: string,
    reason: string | undefined,
  ): Promise<boolean> {
    const outward = outwardOf();
    const claimed = await outward.claimFor(action, ['pending']);
    if (!claimed) return false;
    const set = { decidedBy: approverId, decidedAt: host.clock().getTime(), fence: claimed.fence };
    const because = reason ? `; reason: ${oneLine(reason).slice(0, 200)}` : '';
    let rejected = false;
    try {
      rejected = await parts.unitOfWork.run(async (unit) => {
        if (!(await outward.guard.mark(claimed, ['claimed'], 'rejected', { unit, set }))) return false;
        const note = `rejected ${action.id} by ${approverId}${because}`;
        const entry = { action: 'reject_action', outcome: 'ok' as const, objectIds: [action.id], note };
        await routes.appendAudit(connection, entry, unit);
        return true;
      });
      return rejected;
    } finally {
      if (!rejected) await outward.release(claimed);
    }
  }

  return Object.freeze({ confirm, reject, retried, prepareApproved, runApproved, rejectApproved });
}

export type PendingRoutes<TRight extends string, TServices> = ReturnType<
  typeof createPendingRoutes<TRight, TServices>
>;
