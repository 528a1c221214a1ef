import type { JsonObject } from '../json.js';

/** Where a pending action stands (I9). */
export type PendingStatus =
  | 'pending'
  | 'approved'
  | 'claimed'
  | 'executed'
  | 'rejected'
  | 'superseded'
  | 'failed';

/** A prepared outward action awaiting confirmation. */
export interface PendingAction {
  readonly id: string;
  /** SHA-256 of the confirm token; the token itself is never stored. */
  readonly tokenHash: string;
  readonly connectionId: string;
  readonly tenantId: string;
  readonly tool: string;
  readonly arguments: JsonObject;
  readonly argumentsDigest: string;
  /** SHA-256 of what would go out, compared again at confirmation. */
  readonly contentHash: string;
  /** Written by the server, never copied from model input. */
  readonly summary: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly status: PendingStatus;
  /** Who decides: absent or `model` for the two-step confirm; `person` for approval out of band (I9). */
  readonly approval?: ApprovalMode | undefined;
  /** The person who created the requesting credential (the default approver). */
  readonly creatorId?: string | undefined;
  /** Person actions: the presented result once executed, so the model's `confirm_action` can replay it. */
  readonly result?: JsonObject | undefined;
  /** Person actions: the person who approved or rejected it. */
  readonly decidedBy?: string | undefined;
  /** Person actions: when the decision was made (ms since the epoch). */
  readonly decidedAt?: number | undefined;
}

/** Who may decide a pending action: the model with the two-step confirm, or a person out of band. */
export type ApprovalMode = 'model' | 'person';

/** Fields a transition may set with the status (a decision on a person action). */
export interface PendingActionUpdate {
  readonly result?: JsonObject;
  readonly decidedBy?: string;
  readonly decidedAt?: number;
}

/**
 * Pending actions of the two-step flow (I9). `transition` is a
 * compare-and-set: it moves an action from one of `from` to `to` and reports
 * whether it did, so of many concurrent confirmations exactly one claims it.
 * A host may set `approved` from outside MCP (e.g. its own web app).
 */
export interface PendingActionStore {
  insert(action: PendingAction): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<PendingAction | undefined>;
  /**
   * `unit` is the unit of work's handle when core marks an action executed
   * inside it (so the mark commits with the action); absent, the transition
   * commits on its own. `set` writes the decision fields with the status, in
   * the same statement.
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
   * A tenant's `person` actions still `pending` and unexpired at `now`, oldest
   * first, at most `limit`; needed for the approver's list.
   */
  listAwaitingApproval?(tenantId: string, now: number, limit: number): Promise<readonly PendingAction[]>;
  /** Deletes actions that expired before `before`; returns how many. */
  purge(before: number): Promise<number>;
}

/** A {@link PendingActionStore} in process memory. */
export class MemoryPendingActionStore implements PendingActionStore {
  readonly #byId = new Map<string, PendingAction>();
  readonly #byTokenHash = new Map<string, string>();

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

  async transition(
    id: string,
    from: readonly PendingStatus[],
    to: PendingStatus,
    _unit?: unknown,
    set: PendingActionUpdate = {},
  ): Promise<boolean> {
    const action = this.#byId.get(id);
    if (!action || !from.includes(action.status)) return false;
    this.#byId.set(id, Object.freeze({ ...action, ...set, status: to }));
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
          a.tenantId === tenantId && a.approval === 'person' && a.status === 'pending' && a.expiresAt > now,
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
        removed++;
      }
    }
    return removed;
  }
}
