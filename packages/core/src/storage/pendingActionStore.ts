import type { PendingAction, PendingActionUpdate, PendingClaim, PendingStatus } from '../contract/pending.js';

export type {
  ApprovalMode,
  ClaimedAction,
  PendingAction,
  PendingActionUpdate,
  PendingClaim,
  PendingStatus,
} from '../contract/pending.js';

/**
 * Pending actions of the two-step flow (I9). `claim` and `transition` are
 * compare-and-sets: `claim` moves an action to `claimed` under a lease and a
 * fencing token, so of many concurrent confirmations exactly one holds it,
 * and a claim whose holder died lapses and is taken over; `transition` moves
 * an action from one of `from` to `to` and reports whether it did. A host
 * may set `approved` from outside MCP (e.g. its own web app).
 */
export interface PendingActionStore {
  insert(action: PendingAction): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<PendingAction | undefined>;
  /**
   * Claims the action for one confirmation or approval, committed on its
   * own: moves it from one of `from` to `claimed`, holding `claim`, or takes
   * over a `claimed` one whose claim lapsed at `now` (its `claimExpiresAt`
   * is at or before `now`, or absent). Returns whether it did; of many
   * concurrent callers exactly one gets true.
   */
  claim(id: string, from: readonly PendingStatus[], claim: PendingClaim, now: number): Promise<boolean>;
  /**
   * Extends the claim holding `fence` to `expiresAt`, committed on its own;
   * false once that claim no longer holds the action (it moved on, or was
   * taken over). Core calls it as a heartbeat while a confirmation runs.
   */
  renewClaim(id: string, fence: string, expiresAt: number): Promise<boolean>;
  /**
   * `unit` is the unit of work's handle when core marks an action executed
   * inside it (so the mark commits with the action); absent, the transition
   * commits on its own. `set` writes the decision fields with the status, in
   * the same statement, and `set.fence` fences a move out of `claimed` to
   * that claim. A transition clears the claim (`claimExpiresAt` and its
   * fence): only `claim` holds an action under a lease.
   */
  transition(
    id: string,
    from: readonly PendingStatus[],
    to: PendingStatus,
    unit?: unknown,
    set?: PendingActionUpdate,
  ): Promise<boolean>;
  /** The action with this id, whatever its status; needed for approval by a person. */
  findById?(id: string): Promise<PendingAction | undefined>;
  /**
   * A tenant's `person` actions still `pending` (or `claimed` by a claim that
   * lapsed at `now`: its holder died) and unexpired at `now`, oldest first,
   * at most `limit`; needed for the approver's list.
   */
  listAwaitingApproval?(tenantId: string, now: number, limit: number): Promise<readonly PendingAction[]>;
  /** Deletes actions that expired before `before`; returns how many. */
  purge(before: number): Promise<number>;
}

/** A {@link PendingActionStore} in process memory. */
export class MemoryPendingActionStore implements PendingActionStore {
  readonly #byId = new Map<string, PendingAction>();
  readonly #byTokenHash = new Map<string, string>();
  /** The fence of each claimed action's current claim (never part of what is read back). */
  readonly #fences = new Map<string, string>();

  get size(): number {
    return this.#byId.size;
  }

  async insert(action: PendingAction): Promise<void> {
    if (this.#byId.has(action.id) || this.#byTokenHash.has(action.tokenHash)) {
      throw new Error('A pending action with this id or token already exists.');
    }
    this.#byId.set(action.id, Object.freeze({ ...action }));
    this.#byTokenHash.set(action.tokenHash, action.id);
  }

  async findByTokenHash(tokenHash: string): Promise<PendingAction | undefined> {
    const id = this.#byTokenHash.get(tokenHash);
    return id === undefined ? undefined : this.#byId.get(id);
  }

  async claim(
    id: string,
    from: readonly PendingStatus[],
    claim: PendingClaim,
    now: number,
  ): Promise<boolean> {
    const action = this.#byId.get(id);
    if (!action) return false;
    const lapsed = action.status === 'claimed' && (action.claimExpiresAt ?? now) <= now;
    if (!from.includes(action.status) && !lapsed) return false;
    this.#fences.set(id, claim.fence);
    this.#byId.set(id, Object.freeze({ ...action, status: 'claimed', claimExpiresAt: claim.expiresAt }));
    return true;
  }

  async renewClaim(id: string, fence: string, expiresAt: number): Promise<boolean> {
    const action = this.#byId.get(id);
    if (action?.status !== 'claimed' || this.#fences.get(id) !== fence) return false;
    this.#byId.set(id, Object.freeze({ ...action, claimExpiresAt: expiresAt }));
    return true;
  }

  async transition(
    id: string,
    from: readonly PendingStatus[],
    to: PendingStatus,
    _unit?: unknown,
    set: PendingActionUpdate = {},
  ): Promise<boolean> {
    const action = this.#byId.get(id);
    if (!action || !from.includes(action.status)) return false;
    const { fence, ...fields } = set;
    if (action.status === 'claimed' && fence !== undefined && this.#fences.get(id) !== fence) return false;
    const { claimExpiresAt: _cleared, ...rest } = action;
    this.#fences.delete(id);
    this.#byId.set(id, Object.freeze({ ...rest, ...fields, status: to }));
    return true;
  }

  async findById(id: string): Promise<PendingAction | undefined> {
    return this.#byId.get(id);
  }

  async listAwaitingApproval(
    tenantId: string,
    now: number,
    limit: number,
  ): Promise<readonly PendingAction[]> {
    return [...this.#byId.values()]
      .filter(
        (a) =>
          a.tenantId === tenantId &&
          a.approval === 'person' &&
          (a.status === 'pending' || (a.status === 'claimed' && (a.claimExpiresAt ?? now) <= now)) &&
          a.expiresAt > now,
      )
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }

  async purge(before: number): Promise<number> {
    let removed = 0;
    for (const action of this.#byId.values()) {
      if (action.expiresAt < before) {
        this.#byId.delete(action.id);
        this.#byTokenHash.delete(action.tokenHash);
        this.#fences.delete(action.id);
        removed++;
      }
    }
    return removed;
  }
}
