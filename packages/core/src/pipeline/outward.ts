import type { ToolCall } from '../contract/call.js';
import type { OutwardGuard, PendingDraft } from '../contract/guard.js';
import { type ApprovalLink, type Outcome, refuse } from '../contract/outcome.js';
import type { ClaimedAction, PendingAction, PendingStatus } from '../contract/pending.js';
import type { Prepared, ToolDefinition } from '../contract/tool.js';
import { isOutageCode, ToolError, type ToolErrorInit } from '../errors.js';
import { digest } from '../hashing.js';
import { isPlainObject, type JsonObject } from '../json.js';
import { stripHidden } from '../text.js';
import { presentUtc } from '../time.js';

/** One line of text: hidden characters removed, whitespace collapsed, at most 500 characters. */
export const oneLine = (text: string) => stripHidden(text).replace(/\s+/g, ' ').trim().slice(0, 500);

/**
 * What becomes of a confirm token when a stage refuses its confirmation
 * (I9). `dead`: any later use answers `confirm_used` and nothing is ever sent
 * with it; `superseded`: dead, replaced by a renewed preview; `kept`: the
 * same confirmation works later (a claim this call holds is released).
 */
export type TokenFate = 'dead' | 'superseded' | 'kept';

/** The stages that can refuse a confirmation once its token is known. */
export type TokenStage =
  | 'visibility'
  | 'rate'
  | 'arguments'
  | 'call'
  | 'claim'
  | 'outward'
  | 'unit'
  | 'run'
  | 'changed';

/**
 * The I9 table, by stage: the stage runner applies it whatever outward guard
 * is plugged in. Admission never sees a token. Whatever the stage, an
 * outage (`store_unavailable`, `outcome_unknown`) keeps the token: an outage
 * decided nothing. The outward stage's own refusals go by code
 * ({@link OUTWARD_TOKEN_FATES}).
 */
export const TOKEN_FATES: Readonly<Record<Exclude<TokenStage, 'outward'>, TokenFate>> = Object.freeze({
  visibility: 'dead',
  rate: 'kept',
  arguments: 'kept',
  call: 'dead',
  claim: 'kept',
  unit: 'dead',
  run: 'dead',
  changed: 'superseded',
});

/** The outward stage's own refusals (I9): another connection's token, expired, wrong summary, all dead; locked or awaiting a person, kept. */
export const OUTWARD_TOKEN_FATES: Readonly<Partial<Record<ToolErrorInit['code'], TokenFate>>> = Object.freeze(
  {
    confirm_not_found: 'dead',
    confirm_expired: 'dead',
    confirm_summary_mismatch: 'dead',
    confirm_locked: 'kept',
    approval_pending: 'kept',
  },
);

/** The fate of a token whose confirmation `stage` refused with `code`. */
export function tokenFate(stage: TokenStage, code: string): TokenFate {
  if (isOutageCode(code)) return 'kept';
  if (stage === 'outward') return OUTWARD_TOKEN_FATES[code as ToolErrorInit['code']] ?? 'dead';
  return TOKEN_FATES[stage];
}

const PREVIEW_AGAIN = 'Call the original tool again to get a new preview.';
const refusal = (code: ToolErrorInit['code'], message: string): ToolErrorInit => ({
  code,
  message,
  fix: PREVIEW_AGAIN,
});
const NOT_FOUND = refusal(
  'confirm_not_found',
  'No pending action matches this confirm token on this connection.',
);

/** Another confirmation holds the action: retry once its claim has settled or lapsed. */
const locked = (claimExpiresAt: number | undefined, at: number): ToolErrorInit => ({
  code: 'confirm_locked',
  message: 'This action is being confirmed by another request.',
  fix: 'Send the same confirmation again after retry_after_seconds: it returns that request’s result, or runs if it never finished.',
  details: { retry_after_seconds: Math.max(1, Math.ceil(((claimExpiresAt ?? at) - at) / 1_000)) },
});

const PERSON_STEPS =
  'A person must approve this on the product’s page; no tool call can. Ask the user to open approval_url and decide there, then call confirm_action with the arguments in next to learn the outcome.';

/** Statuses a confirmation may start from. */
export const OPEN: readonly PendingStatus[] = ['pending', 'approved'];

/** How each closed status answers (I9: dead and used tokens answer `confirm_used`). */
const CLOSED: Partial<Record<PendingStatus, [ToolErrorInit['code'], string]>> = {
  executed: ['confirm_used', 'This confirm token was already used.'],
  failed: [
    'confirm_used',
    'This confirm token is dead: an earlier confirmation of it was refused or failed.',
  ],
  superseded: ['confirm_used', 'This confirm token was replaced by a newer preview.'],
  rejected: ['confirm_rejected', 'This action was rejected.'],
};

/** A refusal of the outward stage, with the action it concerns (so its token's fate can be applied). */
export type Opened =
  | { readonly ok: true; readonly action: PendingAction }
  | { readonly ok: false; readonly error: ToolErrorInit; readonly action?: PendingAction | undefined };

/** A claimed action, or why it could not be claimed (with the action as it stands). */
export type Claimed =
  | { readonly ok: true; readonly action: ClaimedAction }
  | { readonly ok: false; readonly error: ToolErrorInit; readonly action?: PendingAction | undefined };

const storeDown = (): ToolError =>
  new ToolError({
    code: 'store_unavailable',
    message: 'The pending-action store could not be reached; nothing was sent and the token is kept.',
    fix: 'Retry the same call shortly.',
  });

/** An outward guard whose every failure is an outage (`store_unavailable`): an outage kills nothing (I9). */
function outageOnFailure<TRight extends string>(guard: OutwardGuard<TRight>): OutwardGuard<TRight> {
  const wrap =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await method.apply(guard, args);
      } catch (error) {
        if (ToolError.is(error)) throw error;
        throw storeDown();
      }
    };
  return {
    ...guard,
    open: wrap(guard.open),
    find: wrap(guard.find),
    claim: wrap(guard.claim),
    mark: wrap(guard.mark),
    keepAlive: (action, clock) => guard.keepAlive(action, clock),
    ...(guard.findById ? { findById: wrap(guard.findById) } : {}),
    ...(guard.listAwaitingApproval ? { listAwaitingApproval: wrap(guard.listAwaitingApproval) } : {}),
  };
}

/**
 * The outward stage (I9), core's side of the two-step flow on the server's
 * outward guard: it turns a prepared call into a preview, opens a
 * confirmation in the order of the I9 table (this connection's action,
 * open, unexpired, the exact summary), claims it, and settles its token by
 * {@link tokenFate}: the guard keeps records, core decides what they mean.
 */
export function createOutwardStage<TRight extends string>(given: OutwardGuard<TRight>, clock: () => Date) {
  const guard = outageOnFailure(given);
  const now = () => clock().getTime();
  const fenceOf = (action: PendingAction) => (action as Partial<ClaimedAction>).fence;

  /** Marks an open or claimed action dead; only while this call's claim holds it, if it holds one. */
  const kill = (action: PendingAction, to: 'failed' | 'superseded' = 'failed') => {
    const fence = fenceOf(action);
    return guard.mark(action, [...OPEN, 'claimed'], to, fence ? { set: { fence } } : undefined);
  };

  /** Undoes this call's claim, keeping the token; never throws (a claim that cannot be released lapses). */
  const release = (action: PendingAction) => {
    const fence = fenceOf(action);
    if (!fence) return Promise.resolve();
    return guard.mark(action, ['claimed'], 'pending', { set: { fence } }).then(
      () => undefined,
      () => undefined,
    );
  };

  /** Applies the I9 table to `action` after `stage` refused with `code`. Never throws. */
  async function settle(action: PendingAction, stage: TokenStage, code: string): Promise<void> {
    const fate = tokenFate(stage, code);
    if (fate === 'kept') await release(action);
    else await kill(action, fate === 'superseded' ? 'superseded' : 'failed').catch(() => false);
  }

  /** Whether `action` is held by a live claim of another call at `at`. */
  const lockedAt = (action: PendingAction, at: number) =>
    action.status === 'claimed' && (action.claimExpiresAt ?? at) > at;

  /** Why `action` cannot be confirmed now, if anything: claimed by a live call, closed, or expired. */
  function closedRefusal(action: PendingAction): ToolErrorInit | undefined {
    const at = now();
    if (lockedAt(action, at)) return locked(action.claimExpiresAt, at);
    const closed = CLOSED[action.status];
    if (closed) return refusal(closed[0], closed[1]);
    if (action.expiresAt <= at)
      return refusal('confirm_expired', 'This confirm token expired; it is now dead.');
    return undefined;
  }

  /** Finds the action of `token` for this connection. */
  async function find(token: string, call: Pick<ToolCall, 'connection'>): Promise<Opened> {
    const action = await guard.find(token);
    if (!action) return { ok: false, error: NOT_FOUND };
    const ours =
      action.connectionId === call.connection.connectionId && action.tenantId === call.connection.tenantId;
    return ours ? { ok: true, action } : { ok: false, error: NOT_FOUND, action };
  }

  return Object.freeze({
    guard,
    settle,
    kill,
    release,
    find,
    keepAlive: (action: ClaimedAction) => guard.keepAlive(action, now),

    /** Stores a prepared outward call as pending and returns the preview the model sees. */
    async preview(
      tool: Pick<ToolDefinition, 'name' | 'title'>,
      call: ToolCall,
      prepared: Prepared,
      contentHash: string,
      person?: { readonly url: (id: string) => string },
    ): Promise<Outcome> {
      const summary = oneLine(`${tool.title ?? tool.name}: ${prepared.summary}`);
      const draft: PendingDraft = {
        connectionId: call.connection.connectionId,
        tenantId: call.connection.tenantId,
        tool: tool.name,
        arguments: call.arguments,
        argumentsDigest: digest(call.arguments),
        contentHash,
        summary,
        ...(person ? { approval: 'person' as const, creatorId: call.connection.creatorId } : {}),
      };
      const { action, token } = await guard.open(draft, now());
      const approval: ApprovalLink | undefined = person
        ? { url: person.url(action.id), pendingActionId: action.id }
        : undefined;
      const preview: JsonObject = {
        action: tool.name,
        ...(approval
          ? {
              approval: 'person',
              approval_url: approval.url,
              pending_action_id: action.id,
              instructions: PERSON_STEPS,
            }
          : {}),
        confirm_token: token,
        confirm_summary: summary,
        expires_at: presentUtc(action.expiresAt, clock()),
        content: prepared.content,
        next: { tool: 'confirm_action', arguments: { confirm_token: token, confirm_summary: summary } },
        reject: { tool: 'reject_action', arguments: { confirm_token: token } },
      };
      return { kind: 'preview', preview, approval };
    },

    /**
     * Why a found action cannot be confirmed now (I9), in order: claimed by
     * a live call, closed, expired, and (when `summary` is given) a summary
     * other than the one the server wrote. Nothing when it can.
     */
    refusalOf(action: PendingAction, summary?: string): ToolErrorInit | undefined {
      const closed = closedRefusal(action);
      if (closed) return closed;
      if (summary !== undefined && summary !== action.summary)
        return refusal(
          'confirm_summary_mismatch',
          'The confirm summary differs from the one in the preview; the token is now dead.',
        );
      return undefined;
    },

    /**
     * Claims an open action for this call (single use under concurrency).
     * When another call got there first, the action is read again by its
     * token for the right answer: closed, or locked for the time its claim has left.
     */
    async claim(action: PendingAction, token: string): Promise<Claimed> {
      const claimed = await guard.claim(action, OPEN, now());
      if (claimed) return { ok: true, action: claimed };
      const current = await guard.find(token);
      const error = closedRefusal(current ?? { ...action, status: 'executed' }) ?? locked(undefined, now());
      return { ok: false, error, action: current };
    },

    /** Claims `action` from `from` for a person's decision; nothing when another holds it. */
    claimFor: (action: PendingAction, from: readonly PendingStatus[]) => guard.claim(action, from, now()),

    /**
     * What `confirm_action` answers for a `person` action: the stored result
     * once approved and executed (a replay), `approval_pending` with the URL
     * while undecided (the token is kept), `approval_rejected` after a
     * rejection. `as: 'tool'` answers a retry of the tool itself (request
     * state), whose result is the tool's own.
     */
    personAnswer(
      action: PendingAction,
      url: (id: string) => string,
      as: 'confirm' | 'tool' = 'confirm',
    ): Outcome {
      if (action.status === 'executed' && action.result) {
        const own = action.result.result;
        const data = as === 'tool' && isPlainObject(own) ? own : action.result;
        return { kind: 'result', data, replayed: true };
      }
      if (action.status === 'rejected') {
        return refuse({
          code: 'approval_rejected',
          message: 'A person rejected this action on the product’s page; nothing was sent.',
          fix: 'Tell the user it was rejected; prepare it again only if they ask.',
          details: { pending_action_id: action.id },
        });
      }
      const open = OPEN.includes(action.status) || action.status === 'claimed';
      if (open && action.expiresAt > now()) {
        const link = { url: url(action.id), pendingActionId: action.id };
        return refuse(
          {
            code: 'approval_pending',
            message: 'A person has not yet approved or rejected this action; nothing was sent.',
            fix: 'Ask the user to open approval_url and decide there, then call confirm_action again.',
            details: {
              pending_action_id: action.id,
              approval_url: link.url,
              expires_at: presentUtc(action.expiresAt, clock()),
            },
          },
          link,
        );
      }
      return refuse(
        closedRefusal(action) ?? refusal('confirm_used', 'This action can no longer be approved.'),
      );
    },

    /** Inside the unit of work: claimed → executed, committed with the action, only while this claim holds it. */
    async markExecuted(
      action: ClaimedAction,
      unit: unknown,
      set: { readonly result?: JsonObject } = {},
    ): Promise<boolean> {
      return guard.mark(action, ['claimed'], 'executed', { unit, set: { ...set, fence: action.fence } });
    },

    /** Inside `reject_action`'s unit of work: the action is closed for good, with its audit row. */
    markRejected: (action: PendingAction, unit: unknown) => guard.mark(action, OPEN, 'rejected', { unit }),
  });
}

export type OutwardStage = ReturnType<typeof createOutwardStage>;

/** A refusal of `confirm_used` when an action was decided under this call's feet. */
export const USED_WHILE_RUNNING = refusal(
  'confirm_used',
  'This confirm token was used while the action ran.',
);
