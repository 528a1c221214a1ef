import type { Ajv2020 } from 'ajv/dist/2020.js';
import { builtInTool } from './builtins/define.js';
import type { Outcome, ToolCall } from './contract/guard.js';
import type { Prepared, ToolDefinition } from './contract/tool.js';
import { ConfigurationError, ToolError, type ToolErrorInit } from './errors.js';
import { digest, sha256Hex } from './hashing.js';
import { newId } from './internal/ids.js';
import { isPlainObject, type JsonObject } from './json.js';
import { heartbeat, leaseOf } from './pipeline/lease.js';
import type { PendingAction, PendingActionStore, PendingStatus } from './storage/pendingActionStore.js';
import { stripHidden } from './text.js';
import { presentUtc } from './time.js';

/** Options of the two-step flow (I9). */
export interface ConfirmOptions {
  readonly store: PendingActionStore;
  /** How long a preview can be confirmed; default 10 minutes. */
  readonly ttlMs?: number;
  /**
   * How long a confirmation's (or an approval's) claim on its action lasts
   * without a renewal; default 10 s. The confirmation renews it every
   * `renewMs` while it runs; a crashed one's claim lapses within the lease
   * and the next confirmation takes it over (an outage kills no token, I9).
   * Must exceed `renewMs` plus the unit of work's `maxWaitMs` (checked at build).
   */
  readonly leaseMs?: number;
  /** How often a running confirmation renews its claim; default a fifth of `leaseMs`. */
  readonly renewMs?: number;
}

/** An action this confirmation (or approval) holds, with the fence of its claim. */
export type ClaimedAction = PendingAction & { readonly status: 'claimed'; readonly fence: string };

const fenceOf = (action: PendingAction): string | undefined => (action as Partial<ClaimedAction>).fence;

/** A fencing token: unique per claim, across processes. */
const newFence = (): string => {
  let hex = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(12))) hex += byte.toString(16).padStart(2, '0');
  return hex;
};

const TOKEN_PREFIX = 'gc_';
const randomToken = () => {
  let binary = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(32))) binary += String.fromCharCode(byte);
  return TOKEN_PREFIX + btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
export const oneLine = (text: string) => stripHidden(text).replace(/\s+/g, ' ').trim().slice(0, 500);
const PREVIEW_AGAIN = 'Call the original tool again to get a new preview.';
const refusal = (code: ToolErrorInit['code'], message: string): ToolError =>
  new ToolError({ code, message, fix: PREVIEW_AGAIN });

/**
 * Another confirmation holds the action: retry once its claim has settled or
 * lapsed (a crashed holder's claim lapses within its lease), so the hint is
 * the time left on that claim, at least a second.
 */
const locked = (claimExpiresAt: number | undefined, at: number): ToolError =>
  new ToolError({
    code: 'confirm_locked',
    message: 'This action is being confirmed by another request.',
    fix: 'Send the same confirmation again after retry_after_seconds: it returns that request’s result, or runs if it never finished.',
    details: { retry_after_seconds: Math.max(1, Math.ceil(((claimExpiresAt ?? at) - at) / 1_000)) },
  });

/**
 * The store with every failure answered as `store_unavailable` (503): an
 * outage is never a refusal, so it kills no token (I9).
 */
function unavailableOnFailure(store: PendingActionStore): PendingActionStore {
  const guard =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await method.apply(store, args);
      } catch (error) {
        if (ToolError.is(error)) throw error;
        throw new ToolError({
          code: 'store_unavailable',
          message: 'The pending-action store could not be reached; nothing was sent and the token is kept.',
          fix: 'Retry the same call shortly.',
        });
      }
    };
  const findById = store.findById;
  const listAwaiting = store.listAwaitingApproval;
  return {
    insert: guard(store.insert),
    findByTokenHash: guard(store.findByTokenHash),
    claim: guard(store.claim),
    renewClaim: guard(store.renewClaim),
    transition: guard(store.transition),
    purge: guard(store.purge),
    ...(findById ? { findById: guard(findById) } : {}),
    ...(listAwaiting ? { listAwaitingApproval: guard(listAwaiting) } : {}),
  };
}

/** A `person` preview: where the person decides, and what the model should do meanwhile. */
export interface PersonApproval {
  readonly url: (pendingActionId: string) => string;
}

const PERSON_STEPS =
  'A person must approve this on the product’s page; no tool call can. Ask the user to open approval_url and decide there, then call confirm_action with the arguments in next to learn the outcome.';

/** Statuses a confirmation may start from. */
const OPEN: readonly PendingStatus[] = ['pending', 'approved'];

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

/**
 * The pending actions of the two-step flow (I9), and the bookkeeping of
 * their tokens. Every mark here (claimed, dead, superseded, used) is one
 * compare-and-set on the store, made outside any unit of work so no rollback
 * undoes it, except `markExecuted`, which core makes inside the unit of work
 * that runs the action, so "executed" and the action commit together.
 */
export function createConfirmBook(options: ConfirmOptions, clock: () => Date, maxWaitMs?: number) {
  if (typeof options.store?.claim !== 'function' || typeof options.store.renewClaim !== 'function') {
    throw new ConfigurationError(
      'createServer: confirm.store must be a PendingActionStore with claim and renewClaim (claims under a lease, I9).',
    );
  }
  const store = unavailableOnFailure(options.store);
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const lease = leaseOf('confirm', options, maxWaitMs);
  const now = () => clock().getTime();
  let previews = 0;

  /** Stores a prepared outward call as pending and returns the preview the model sees. */
  async function insert(
    tool: Pick<ToolDefinition, 'name' | 'title'>,
    call: ToolCall,
    prepared: Prepared,
    contentHash: string,
    person?: PersonApproval,
  ): Promise<JsonObject> {
    const at = now();
    const token = randomToken();
    const summary = oneLine(`${tool.title ?? tool.name}: ${prepared.summary}`);
    const action: PendingAction = {
      id: `pa_${newId(at)}`,
      tokenHash: sha256Hex(token),
      connectionId: call.connection.connectionId,
      tenantId: call.connection.tenantId,
      tool: tool.name,
      arguments: call.arguments,
      argumentsDigest: digest(call.arguments),
      contentHash,
      summary,
      createdAt: at,
      expiresAt: at + ttlMs,
      status: 'pending',
      ...(person ? { approval: 'person' as const, creatorId: call.connection.creatorId } : {}),
    };
    await store.insert(action);
    if (++previews % 100 === 0) await store.purge(at - ttlMs);
    return {
      action: tool.name,
      ...(person
        ? {
            approval: 'person',
            approval_url: person.url(action.id),
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
  }

  /**
   * Marks an open or claimed action dead; its token answers `confirm_used`
   * from now on. An action this call holds dies only while its claim is
   * current: a call whose claim was taken over leaves the new holder's run alone.
   */
  const kill = (action: PendingAction, to: 'failed' | 'superseded' = 'failed') => {
    const fence = fenceOf(action);
    return store.transition(action.id, [...OPEN, 'claimed'], to, undefined, fence ? { fence } : undefined);
  };

  /**
   * Claims `action` from one of `from` for this call under a lease (a
   * `claimed` one whose claim lapsed is taken over); undefined when another
   * call holds it or it moved on.
   */
  async function claimFor(
    action: PendingAction,
    from: readonly PendingStatus[],
  ): Promise<ClaimedAction | undefined> {
    const fence = newFence();
    const at = now();
    const won = await store.claim(action.id, from, { fence, expiresAt: at + lease.leaseMs }, at);
    return won ? { ...action, status: 'claimed', fence, claimExpiresAt: at + lease.leaseMs } : undefined;
  }

  /** Whether `action` is held by a live claim of another call at `at`. */
  const lockedAt = (action: PendingAction, at: number) =>
    action.status === 'claimed' && (action.claimExpiresAt ?? at) > at;

  /** Finds the action of `token` for this connection; a token of another connection dies. */
  async function find(token: string, call: ToolCall): Promise<PendingAction> {
    const action = await store.findByTokenHash(sha256Hex(token));
    if (!action)
      throw refusal('confirm_not_found', 'No pending action matches this confirm token on this connection.');
    const ours =
      action.connectionId === call.connection.connectionId && action.tenantId === call.connection.tenantId;
    if (!ours) {
      await kill(action);
      throw refusal('confirm_not_found', 'No pending action matches this confirm token on this connection.');
    }
    return action;
  }

  /**
   * Refuses a closed or expired action; an expired one dies. A `claimed`
   * action whose claim lapsed (its holder died) counts as open.
   */
  async function refuseClosed(action: PendingAction): Promise<void> {
    const at = now();
    if (lockedAt(action, at)) throw locked(action.claimExpiresAt, at);
    const closed = CLOSED[action.status];
    if (closed) throw refusal(closed[0], closed[1]);
    if (action.expiresAt <= at) {
      await kill(action);
      throw refusal('confirm_expired', 'This confirm token expired; it is now dead.');
    }
  }

  /**
   * What `confirm_action` answers for a `person` action: the stored result
   * once approved and executed (a replay), `approval_pending` with the URL
   * while undecided (the token is kept), `approval_rejected` after a
   * rejection; an expired one dies. `as: 'tool'` answers a retry of the
   * tool itself (request state), whose result is the tool's own.
   */
  async function personAnswer(
    action: PendingAction,
    url: (id: string) => string,
    as: 'confirm' | 'tool' = 'confirm',
  ): Promise<Outcome> {
    if (action.status === 'executed' && action.result) {
      const own = action.result.result;
      const data = as === 'tool' && isPlainObject(own) ? own : action.result;
      return { kind: 'result', data, replayed: true };
    }
    if (action.status === 'rejected') {
      return {
        kind: 'refused',
        error: {
          code: 'approval_rejected',
          message: 'A person rejected this action on the product’s page; nothing was sent.',
          fix: 'Tell the user it was rejected; prepare it again only if they ask.',
          details: { pending_action_id: action.id },
        },
      };
    }
    const open = OPEN.includes(action.status) || action.status === 'claimed';
    if (open && action.expiresAt > clock().getTime()) {
      return {
        kind: 'refused',
        error: {
          code: 'approval_pending',
          message: 'A person has not yet approved or rejected this action; nothing was sent.',
          fix: 'Ask the user to open approval_url and decide there, then call confirm_action again.',
          details: {
            pending_action_id: action.id,
            approval_url: url(action.id),
            expires_at: presentUtc(action.expiresAt, clock()),
          },
        },
      };
    }
    await refuseClosed(action);
    throw refusal('confirm_used', 'This action can no longer be approved.');
  }

  return Object.freeze({
    insert,
    kill,
    claimFor,
    personAnswer,
    store,
    /** Renews `action`'s claim while its confirmation runs (a heartbeat); returns the function that stops it. */
    keepAlive: (action: ClaimedAction): (() => void) =>
      heartbeat(() => store.renewClaim(action.id, action.fence, now() + lease.leaseMs), lease.renewMs),
    /**
     * Opens a confirmation (I9) of an action `find` returned, in order: the
     * action is open and unexpired, the summary is exact (a wrong one kills
     * the token), then claims it (single use under concurrency).
     */
    find,
    async claim(action: PendingAction, summary: string): Promise<ClaimedAction> {
      await refuseClosed(action);
      if (summary !== action.summary) {
        await kill(action);
        throw refusal(
          'confirm_summary_mismatch',
          'The confirm summary differs from the one in the preview; the token is now dead.',
        );
      }
      const claimed = await claimFor(action, OPEN);
      if (!claimed) {
        const current = await store.findByTokenHash(action.tokenHash);
        await refuseClosed(current ?? { ...action, status: 'executed' });
        throw locked(undefined, now());
      }
      return claimed;
    },
    /** Inside the unit of work: claimed → executed, committed with the action, only while this claim holds it. */
    async markExecuted(action: ClaimedAction, unit: unknown): Promise<void> {
      if (!(await store.transition(action.id, ['claimed'], 'executed', unit, { fence: action.fence }))) {
        throw refusal('confirm_used', 'This confirm token was used while the action ran.');
      }
    },
    /**
     * After an outage (503, or an outcome unknown): this call's claim is
     * undone and the token kept. If the store is still down, the claim
     * lapses within its lease and the next confirmation takes it over; the
     * outage is what the caller hears about.
     */
    release: (action: ClaimedAction) =>
      store.transition(action.id, ['claimed'], 'pending', undefined, { fence: action.fence }).then(
        () => undefined,
        () => undefined,
      ),
    /** A token sent to a tool the connection may not call now dies, if it is this connection's (I9). */
    async killIfOurs(token: unknown, call: Pick<ToolCall, 'connection'>): Promise<void> {
      if (typeof token !== 'string' || token.length > 200) return;
      const action = await store.findByTokenHash(sha256Hex(token)).catch(() => undefined);
      const ours =
        action?.connectionId === call.connection.connectionId && action.tenantId === call.connection.tenantId;
      if (action && ours) await kill(action).catch(() => false);
    },
    /** Opens an action for `reject_action`: this connection's, open and unexpired (refusals kill, on their own). */
    async open(token: string, call: ToolCall): Promise<PendingAction> {
      const action = await find(token, call);
      await refuseClosed(action);
      return action;
    },
    /** Inside `reject_action`'s unit of work: the action is closed for good, with its audit row. */
    async markRejected(action: PendingAction, unit: unknown): Promise<void> {
      if (!(await store.transition(action.id, OPEN, 'rejected', unit))) {
        throw refusal('confirm_used', 'This action can no longer be rejected.');
      }
    },
  });
}

export type ConfirmBook = ReturnType<typeof createConfirmBook>;

/** `confirm_action` and `reject_action`, the built-in tools of the two-step flow. */
export function confirmTools<TRight extends string, TServices>(ajv: Ajv2020) {
  const confirmAction = builtInTool<TRight, TServices>(ajv, {
    name: 'confirm_action',
    title: 'Confirm a prepared action',
    description:
      'Executes an action prepared by a notify, wake, alert or delete tool, given its confirm token and the exact summary shown in the preview.',
    effect: 'write',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    confirms: 'confirm',
    input: {
      type: 'object',
      properties: {
        confirm_token: { type: 'string', minLength: 1, maxLength: 200 },
        confirm_summary: { type: 'string', maxLength: 1000 },
      },
      required: ['confirm_token', 'confirm_summary'],
    },
    resultSchema: {
      type: 'object',
      properties: {
        action: { type: 'string' },
        pending_action_id: { type: 'string' },
        result: { type: 'object' },
      },
      required: ['action', 'pending_action_id', 'result'],
      additionalProperties: false,
    },
  });

  const rejectAction = builtInTool<TRight, TServices>(ajv, {
    name: 'reject_action',
    title: 'Reject a prepared action',
    description:
      'Discards an action prepared by a notify, wake, alert or delete tool; its confirm token stops working.',
    effect: 'write',
    input: {
      type: 'object',
      properties: {
        confirm_token: { type: 'string', minLength: 1, maxLength: 200 },
        reason: { type: 'string', maxLength: 200 },
      },
      required: ['confirm_token'],
    },
    resultSchema: {
      type: 'object',
      properties: {
        rejected: { type: 'string' },
        pending_action_id: { type: 'string' },
        id: { type: 'string' },
      },
      required: ['rejected', 'pending_action_id'],
      additionalProperties: false,
    },
    confirms: 'reject',
  });
  return [confirmAction, rejectAction] as const;
}
