import {
  type ApprovalOptions,
  type ClaimedAction,
  ConfigurationError,
  defineGuard,
  type OutwardGuard,
  type PendingAction,
  type PendingActionStore,
  type PendingDraft,
  sha256Hex,
} from '@gatehousejs/core';
import { heartbeat, leaseOf, newFence, newId } from '@gatehousejs/core/internal';

/** Options of {@link confirmGuard}. */
export interface ConfirmGuardOptions<TRight extends string = string> {
  readonly store: PendingActionStore;
  /** How long a preview can be confirmed; default 10 minutes. */
  readonly ttlMs?: number;
  /**
   * How long a confirmation's (or an approval's) claim on its action lasts
   * without a renewal; default 10 s. The confirmation renews it every
   * `renewMs` while it runs; a crashed one's claim lapses within the lease
   * and the next confirmation takes it over (an outage kills no token, I9).
   * Must exceed `renewMs` plus the unit of work's `maxWaitMs` (checked when the server is built).
   */
  readonly leaseMs?: number;
  /** How often a running confirmation renews its claim; default a fifth of `leaseMs`. */
  readonly renewMs?: number;
  /**
   * Approval by a person (I9): which outward tools need one (a tool's own
   * `approval` wins over `byEffect`), the host page's URL for an action,
   * and the requesting credential's live connection. The store must have
   * `findById` and `listAwaitingApproval`.
   */
  readonly approval?: ApprovalOptions<TRight>;
}

const TOKEN_PREFIX = 'gc_';

/** A confirm token: 256 random bits, URL-safe; only its SHA-256 is stored. */
const randomToken = () => {
  let binary = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(32))) binary += String.fromCharCode(byte);
  return TOKEN_PREFIX + btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

/** Every this many previews, actions expired longer than a preview's life are purged. */
const PURGE_EVERY = 100;

/**
 * The two-step flow's bookkeeping (I9), an outward guard: a prepared
 * outward call becomes a pending action with a one-time confirm token
 * (`gc_…`, 256 random bits; only its hash is stored), found again by token,
 * claimed by one confirmation at a time under a lease with a fencing token,
 * and marked (executed, dead, superseded, rejected) by compare-and-set. With
 * `approval`, the tools a person approves are decided on the host's page.
 * Which refusal kills a token is core's I9 table, not this guard's.
 *
 * @example
 * confirmGuard({ store: stores.pendingActions, approval: { url, connectionOf } });
 */
export function confirmGuard<TRight extends string = string>(
  options: ConfirmGuardOptions<TRight>,
): OutwardGuard<TRight> {
  const store = options?.store;
  const methods = ['insert', 'findByTokenHash', 'claim', 'renewClaim', 'transition', 'purge'] as const;
  if (methods.some((name) => typeof store?.[name] !== 'function'))
    throw new ConfigurationError(
      'confirmGuard: store must be a PendingActionStore with claim and renewClaim (claims under a lease, I9).',
    );
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1)
    throw new ConfigurationError('confirmGuard: ttlMs must be a positive integer of milliseconds.');
  const lease = leaseOf('confirmGuard', options);
  const approval = options.approval;
  if (approval !== undefined && (typeof approval !== 'object' || approval === null))
    throw new ConfigurationError(
      'confirmGuard: approval must be { url, connectionOf, byEffect?, approvers? }.',
    );
  let previews = 0;
  const findById = store.findById;
  const listAwaiting = store.listAwaitingApproval;

  return defineGuard({
    kind: 'outward',
    name: 'confirm',
    ttlMs,
    lease,
    approval,
    async open(draft: PendingDraft, now: number) {
      const token = randomToken();
      const action: PendingAction = {
        ...draft,
        id: `pa_${newId(now)}`,
        tokenHash: sha256Hex(token),
        createdAt: now,
        expiresAt: now + ttlMs,
        status: 'pending',
      };
      await store.insert(action);
      if (++previews % PURGE_EVERY === 0) await store.purge(now - ttlMs);
      return { action, token };
    },
    find: (token: string) => store.findByTokenHash(sha256Hex(token)),
    async claim(action, from, now): Promise<ClaimedAction | undefined> {
      const fence = newFence();
      const expiresAt = now + lease.leaseMs;
      if (!(await store.claim(action.id, from, { fence, expiresAt }, now))) return undefined;
      return { ...action, status: 'claimed', fence, claimExpiresAt: expiresAt };
    },
    keepAlive: (action: ClaimedAction, clock: () => number) =>
      heartbeat(() => store.renewClaim(action.id, action.fence, clock() + lease.leaseMs), lease.renewMs),
    mark: (action, from, to, marking) => store.transition(action.id, from, to, marking?.unit, marking?.set),
    ...(findById ? { findById: (id: string) => findById.call(store, id) } : {}),
    ...(listAwaiting
      ? {
          listAwaitingApproval: (tenantId: string, now: number, limit: number) =>
            listAwaiting.call(store, tenantId, now, limit),
        }
      : {}),
  });
}
