import type { Connection } from './context.js';
import type {
  ApprovalDecision,
  ApprovalOptions,
  ApprovalStatus,
  Approvals,
  ApprovalView,
  Approver,
} from './contract/approval.js';
import type { OutwardGuard } from './contract/guard.js';
import type { PendingAction } from './contract/pending.js';
import type { ToolDefinition } from './contract/tool.js';
import type { OutwardEffect } from './effects.js';
import { ConfigurationError, ToolError, type ToolErrorInit } from './errors.js';
import type { ApprovedRun } from './pipeline/calls.js';
import type { OutwardStage } from './pipeline/outward.js';

/** The pipeline's side of approval by a person (see `createPipeline`). */
export interface ApprovalRunner<TRight extends string> {
  prepareApproved(
    action: PendingAction,
    connection: Connection<TRight>,
  ): Promise<
    | { readonly content: ApprovalView['content']; readonly contentHash: string }
    | { readonly error: ToolErrorInit }
  >;
  runApproved(
    action: PendingAction,
    connection: Connection<TRight>,
    approverId: string,
    shownHash: string,
  ): Promise<ApprovedRun>;
  rejectApproved(
    action: PendingAction,
    connection: Connection<TRight>,
    approverId: string,
    reason: string | undefined,
  ): Promise<boolean>;
}

type Tool = Pick<ToolDefinition, 'name' | 'title' | 'effect' | 'requires'>;

const refused = (code: string, message: string): ApprovalDecision => ({ outcome: 'refused', code, message });
const NOT_FOUND = refused('not_found', 'No action awaiting your approval has this id.');
const CLOSED = refused(
  'closed',
  'This action was already decided, has expired, or can no longer be approved.',
);

/** Where a stored action stands, as a page shows it. */
function statusOf(action: PendingAction, now: number): ApprovalStatus {
  switch (action.status) {
    case 'executed':
      return 'executed';
    case 'rejected':
      return 'rejected';
    case 'failed':
    case 'superseded':
      return 'closed';
    default:
      return action.expiresAt > now ? 'pending' : 'expired';
  }
}

/**
 * Whether a person may decide `action` now: unexpired and `pending`, or
 * `claimed` by an approval whose claim lapsed (its process died mid-way).
 */
const decidableNow = (action: PendingAction, now: number): boolean =>
  statusOf(action, now) === 'pending' &&
  (action.status === 'pending' || (action.status === 'claimed' && (action.claimExpiresAt ?? now) <= now));

/** The requesting credential when it is gone: enough for the rejection's audit row. */
const standIn = <TRight extends string>(action: PendingAction): Connection<TRight> => ({
  connectionId: action.connectionId,
  tenantId: action.tenantId,
  creatorId: action.creatorId ?? '',
  clientName: '',
  channel: 'mcp',
  rights: new Set<TRight>(),
});

/** Refuses at build time what would fail at the first approval. */
export function checkApprovalSetup(
  options: ApprovalOptions | undefined,
  outward: OutwardGuard | undefined,
  byPerson: ReadonlySet<string>,
): void {
  if (byPerson.size === 0) return;
  const tools = [...byPerson].join(', ');
  if (!outward)
    throw new ConfigurationError(
      `Tools ${tools} need the two-step flow; add confirmGuard({ store }) to the guards.`,
    );
  if (!options || typeof options.url !== 'function' || typeof options.connectionOf !== 'function') {
    throw new ConfigurationError(
      `Tools ${tools} need a person's approval; pass confirmGuard({ store, approval: { url, connectionOf } }).`,
    );
  }
  if (!outward.findById || !outward.listAwaitingApproval) {
    throw new ConfigurationError(
      `Tools ${tools} need a person's approval, but the outward guard ${outward.name} has no findById and listAwaitingApproval (its store lacks them).`,
    );
  }
  if (
    options.approvers !== undefined &&
    options.approvers !== 'creator' &&
    options.approvers !== 'workspace'
  ) {
    throw new ConfigurationError("approval.approvers must be 'creator' or 'workspace'.");
  }
}

/**
 * The host page's side of approval by a person (I9). An approver sees and
 * decides only their tenant's person actions, and by default only those
 * of credentials they created; approving runs the confirm stages with the
 * requesting credential's live standing.
 */
export function createApprovals<TRight extends string>(parts: {
  readonly options: ApprovalOptions<TRight>;
  readonly outward: OutwardStage;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly byPerson: ReadonlySet<string>;
  readonly runner: ApprovalRunner<TRight>;
  readonly clock: () => Date;
  /** Counts each decision (telemetry). */
  readonly onDecision?:
    | ((outcome: 'executed' | 'rejected' | 'changed' | 'refused', tool: string) => void)
    | undefined;
}): Approvals<TRight> {
  const { options, outward, tools, byPerson, runner, clock } = parts;
  const counted = (tool: string, decision: ApprovalDecision): ApprovalDecision => {
    parts.onDecision?.(decision.outcome, tool);
    return decision;
  };
  const findById = outward.guard.findById!.bind(outward.guard);
  const listAwaiting = outward.guard.listAwaitingApproval!.bind(outward.guard);
  const widened = options.approvers === 'workspace';

  /** The action if this approver may decide it; anything else reads as unknown. */
  async function decidable(
    id: string,
    approver: Approver<TRight>,
  ): Promise<[PendingAction, Tool] | undefined> {
    if (typeof id !== 'string' || id.length > 100) return undefined;
    const action = await findById(id);
    if (action?.approval !== 'person' || action.tenantId !== approver.tenantId) return undefined;
    const tool = tools.get(action.tool);
    if (!tool || !byPerson.has(tool.name) || !mayDecide(action, tool, approver)) return undefined;
    return [action, tool];
  }

  function mayDecide(action: PendingAction, tool: Tool, approver: Approver<TRight>): boolean {
    if (approver.personId === action.creatorId) return true;
    return widened && tool.requires.every((right) => approver.rights.has(right as TRight));
  }

  function viewOf(action: PendingAction, tool: Tool): ApprovalView {
    return {
      id: action.id,
      tool: action.tool,
      title: tool.title ?? tool.name,
      effect: tool.effect as OutwardEffect,
      summary: action.summary,
      tenantId: action.tenantId,
      connectionId: action.connectionId,
      creatorId: action.creatorId ?? '',
      status: statusOf(action, clock().getTime()),
      createdAt: action.createdAt,
      expiresAt: action.expiresAt,
      ...(action.status === 'executed' && action.result ? { result: action.result } : {}),
      ...(action.decidedBy ? { decidedBy: action.decidedBy } : {}),
      ...(action.decidedAt !== undefined ? { decidedAt: action.decidedAt } : {}),
    };
  }

  /** A pending action's view with what would go out now, or the reason it cannot be approved. */
  async function freshView(action: PendingAction, tool: Tool): Promise<ApprovalView> {
    const view = viewOf(action, tool);
    if (view.status !== 'pending') return view;
    const connection = await options.connectionOf(action.connectionId, action.tenantId);
    if (!connection)
      return { ...view, problem: 'The requesting token was revoked or its creator is no longer active.' };
    const fresh = await runner.prepareApproved(action, connection);
    if ('error' in fresh) return { ...view, problem: fresh.error.message };
    return { ...view, content: fresh.content, contentHash: fresh.contentHash };
  }

  const approvals: Approvals<TRight> = {
    async listPending(approver, limit = 50) {
      const now = clock().getTime();
      const actions = await listAwaiting(approver.tenantId, now, Math.min(Math.max(1, limit), 500));
      return actions.flatMap((action) => {
        const tool = tools.get(action.tool);
        return tool && byPerson.has(tool.name) && mayDecide(action, tool, approver)
          ? [viewOf(action, tool)]
          : [];
      });
    },
    async view(id, approver) {
      const found = await decidable(id, approver);
      return found ? freshView(...found) : undefined;
    },
    async approve(id, approver, shown) {
      const decision = await approve(id, approver, shown);
      return counted(decision.outcome === 'refused' ? '(any)' : decision.view.tool, decision);
    },
    async reject(id, approver, reason) {
      const decision = await reject(id, approver, reason);
      return counted(decision.outcome === 'refused' ? '(any)' : decision.view.tool, decision);
    },
  };

  async function approve(
    id: string,
    approver: Approver<TRight>,
    shown: { readonly contentHash: string },
  ): Promise<ApprovalDecision> {
    const found = await decidable(id, approver);
    if (!found) return NOT_FOUND;
    const [action, tool] = found;
    if (!decidableNow(action, clock().getTime())) return CLOSED;
    if (typeof shown?.contentHash !== 'string' || shown.contentHash.length === 0) {
      return refused('invalid_arguments', 'The approval does not say which content was shown.');
    }
    const connection = await options.connectionOf(action.connectionId, action.tenantId);
    if (
      !connection ||
      connection.connectionId !== action.connectionId ||
      connection.tenantId !== action.tenantId
    ) {
      await outward.kill(action).catch(() => false);
      return refused(
        'credential_inactive',
        'The requesting token was revoked or its creator is no longer active; nothing was sent.',
      );
    }
    try {
      const run = await runner.runApproved(action, connection, approver.personId, shown.contentHash);
      const now = (await findById(id)) ?? action;
      switch (run.kind) {
        case 'executed':
          return { outcome: 'executed', result: run.result, view: viewOf(now, tool) };
        case 'changed':
          return {
            outcome: 'changed',
            view: { ...viewOf(now, tool), content: run.content, contentHash: run.contentHash },
          };
        case 'refused':
          return refused(run.error.code, run.error.message);
      }
    } catch (error) {
      if (ToolError.is(error)) return refused(error.code, error.message);
      throw error;
    }
  }

  async function reject(
    id: string,
    approver: Approver<TRight>,
    reason: string | undefined,
  ): Promise<ApprovalDecision> {
    const found = await decidable(id, approver);
    if (!found) return NOT_FOUND;
    const [action, tool] = found;
    if (!decidableNow(action, clock().getTime())) return CLOSED;
    const connection =
      (await options.connectionOf(action.connectionId, action.tenantId)) ?? standIn<TRight>(action);
    try {
      if (!(await runner.rejectApproved(action, connection, approver.personId, reason))) return CLOSED;
    } catch (error) {
      if (ToolError.is(error)) return refused(error.code, error.message);
      throw error;
    }
    return { outcome: 'rejected', view: viewOf((await findById(id)) ?? action, tool) };
  }
  return Object.freeze(approvals);
}
