import type {
  PendingAction,
  PendingActionStore,
  PendingActionUpdate,
  PendingClaim,
  PendingStatus,
} from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { duration, type SweepOptions, sweepBatch } from './internal/options.js';
import {
  approvalColumnsOf,
  awaitingLimit,
  claimColumnsOf,
  type PendingActionColumns,
  pendingActionOf,
  updateValuesOf,
} from './internal/rows.js';
import { assertSchema } from './internal/schemaVersion.js';
import { type LockOptions, writer } from './internal/writes.js';

/** Options of {@link SqlitePendingActionStore}. */
export interface SqlitePendingActionStoreOptions extends SweepOptions, LockOptions {
  /**
   * How long an expired action stays findable, so a late confirmation answers
   * "expired" rather than "not found"; `purgeExpired(now)` deletes actions
   * expired longer ago than this. Default one hour.
   */
  readonly expiredRetentionMs?: number;
}

const toRow = (action: PendingAction): PendingActionColumns => ({
  id: action.id,
  token_hash: action.tokenHash,
  connection_id: action.connectionId,
  tenant_id: action.tenantId,
  tool: action.tool,
  arguments: JSON.stringify(action.arguments),
  arguments_digest: action.argumentsDigest,
  content_hash: action.contentHash,
  summary: action.summary,
  created_at: action.createdAt,
  expires_at: action.expiresAt,
  status: action.status,
  ...approvalColumnsOf(action),
  ...claimColumnsOf(action),
});

/** Parameters of the compare-and-set; a `null` decision field keeps the column, a `null` fence fences nothing. */
interface TransitionParams extends ReturnType<typeof updateValuesOf> {
  readonly id: string;
  readonly from: string;
  readonly to: PendingStatus;
}

/** Parameters of `claim`: the statuses it moves from (JSON text) and the claim it writes. */
interface ClaimParams {
  readonly id: string;
  readonly from: string;
  readonly fence: string;
  readonly expiresAt: number;
  readonly now: number;
}

/** A `claimed` row whose claim lapsed at `@now` (NULL: written without a lease, lapsed at once). */
const LAPSED = "(status = 'claimed' AND (claim_expires_at IS NULL OR claim_expires_at <= @now))";

const NAME = 'SqlitePendingActionStore';

function preparePending(db: SqliteDatabase) {
  const insert = db.prepare<PendingActionColumns>(
    `INSERT INTO gatehouse_pending_actions (id, token_hash, connection_id, tenant_id, tool, arguments,
       arguments_digest, content_hash, summary, created_at, expires_at, status, approval, creator_id,
       result, decided_by, decided_at, claim_fence, claim_expires_at)
     VALUES (@id, @token_hash, @connection_id, @tenant_id, @tool, @arguments, @arguments_digest,
       @content_hash, @summary, @created_at, @expires_at, @status, @approval, @creator_id, @result,
       @decided_by, @decided_at, @claim_fence, @claim_expires_at)
     ON CONFLICT DO NOTHING`,
  );
  return {
    insert: (action: PendingAction): void => {
      if (insert.run(toRow(action)).changes !== 1) {
        throw new Error('A pending action with this id or token already exists.');
      }
    },
    find: db.prepare<[string], PendingActionColumns>(
      'SELECT * FROM gatehouse_pending_actions WHERE token_hash = ?',
    ),
    findById: db.prepare<[string], PendingActionColumns>(
      'SELECT * FROM gatehouse_pending_actions WHERE id = ?',
    ),
    claim: db.prepare<ClaimParams>(
      `UPDATE gatehouse_pending_actions
       SET status = 'claimed', claim_fence = @fence, claim_expires_at = @expiresAt
       WHERE id = @id AND (status IN (SELECT value FROM json_each(@from)) OR ${LAPSED})`,
    ),
    renewClaim: db.prepare<{ id: string; fence: string; expiresAt: number }>(
      `UPDATE gatehouse_pending_actions SET claim_expires_at = @expiresAt
       WHERE id = @id AND status = 'claimed' AND claim_fence = @fence`,
    ),
    // A fenced move out of `claimed` needs the claim holding @fence; every move clears the claim.
    transition: db.prepare<TransitionParams>(
      `UPDATE gatehouse_pending_actions SET status = @to, result = coalesce(@result, result),
         decided_by = coalesce(@decided_by, decided_by), decided_at = coalesce(@decided_at, decided_at),
         claim_fence = NULL, claim_expires_at = NULL
       WHERE id = @id AND status IN (SELECT value FROM json_each(@from))
         AND (@fence IS NULL OR status <> 'claimed' OR claim_fence = @fence)`,
    ),
    awaiting: db.prepare<{ tenantId: string; now: number; limit: number }, PendingActionColumns>(
      `SELECT * FROM gatehouse_pending_actions
       WHERE tenant_id = @tenantId AND approval = 'person' AND expires_at > @now
         AND (status = 'pending' OR ${LAPSED})
       ORDER BY created_at, id LIMIT @limit`,
    ),
    purge: db.prepare<[number]>('DELETE FROM gatehouse_pending_actions WHERE expires_at < ?'),
  };
}

/**
 * A {@link PendingActionStore} in `gatehouse_pending_actions` (I9). `insert`
 * refuses a second action with the same id or token hash (`ON CONFLICT DO
 * NOTHING` and a row count); `claim`, `renewClaim` and `transition` are each
 * one compare-and-set `UPDATE … WHERE id = ? AND …`, so of many concurrent
 * confirmations, across processes, exactly one claims the action (or takes
 * over a claim that lapsed), a fenced transition moves it only for the claim
 * still holding it, and only the winner writes its decision fields (`set`).
 * `findById` and `listAwaitingApproval` serve approval by a person. Expired
 * actions stay findable for `expiredRetentionMs` (the guard answers
 * "expired"); `purgeExpired(now)` (or the stores' `housekeeping`) deletes
 * them after that, never a request.
 *
 * @example
 * const pending = new SqlitePendingActionStore(db, { expiredRetentionMs: 3_600_000 });
 */
export class SqlitePendingActionStore implements PendingActionStore {
  readonly #sql: ReturnType<typeof preparePending>;
  readonly #write: ReturnType<typeof writer>;
  readonly #retentionMs: number;

  constructor(db: SqliteDatabase, options: SqlitePendingActionStoreOptions = {}) {
    this.#write = writer(db, NAME, options);
    assertSchema(db, NAME);
    sweepBatch(NAME, options.sweepBatch);
    this.#retentionMs = duration(NAME, 'expiredRetentionMs', options.expiredRetentionMs ?? 3_600_000);
    this.#sql = preparePending(db);
  }

  /** Synchronous {@link PendingActionStore.insert}; throws on a duplicate id or token hash. */
  insertSync(action: PendingAction): void {
    this.#sql.insert(action);
  }

  /** Synchronous {@link PendingActionStore.findByTokenHash}. */
  findByTokenHashSync(tokenHash: string): PendingAction | undefined {
    const row = this.#sql.find.get(tokenHash);
    return row ? pendingActionOf(row) : undefined;
  }

  /** Synchronous {@link PendingActionStore.findById}: the action with this id, whatever its status. */
  findByIdSync(id: string): PendingAction | undefined {
    const row = this.#sql.findById.get(id);
    return row ? pendingActionOf(row) : undefined;
  }

  /**
   * Synchronous {@link PendingActionStore.claim}: one `UPDATE` moving the
   * action from one of `from`, or from a `claimed` whose claim lapsed at
   * `now`, to `claimed` under `claim`; true only for the one caller that did.
   */
  claimSync(id: string, from: readonly PendingStatus[], claim: PendingClaim, now: number): boolean {
    const params = { id, from: JSON.stringify(from), fence: claim.fence, expiresAt: claim.expiresAt, now };
    return this.#sql.claim.run(params).changes === 1;
  }

  /** Synchronous {@link PendingActionStore.renewClaim}: true only while the claim holding `fence` has the action. */
  renewClaimSync(id: string, fence: string, expiresAt: number): boolean {
    return this.#sql.renewClaim.run({ id, fence, expiresAt }).changes === 1;
  }

  /**
   * Synchronous {@link PendingActionStore.transition}: true only for the one
   * caller that moved it; `set` is written in the same `UPDATE`, so a losing
   * caller writes nothing, and `set.fence` moves a `claimed` action only for
   * the claim holding it. Clears the claim.
   */
  transitionSync(
    id: string,
    from: readonly PendingStatus[],
    to: PendingStatus,
    set?: PendingActionUpdate,
  ): boolean {
    if (from.length === 0) return false;
    const params = { id, from: JSON.stringify(from), to, ...updateValuesOf(set) };
    return this.#sql.transition.run(params).changes === 1;
  }

  /**
   * Synchronous {@link PendingActionStore.listAwaitingApproval}: the tenant's
   * `person` actions still `pending` (or `claimed` by a claim that lapsed at
   * `now`) and unexpired at `now`, oldest first (then by id), at most
   * `limit`. Refuses a `limit` that is not a non-negative integer.
   */
  listAwaitingApprovalSync(tenantId: string, now: number, limit: number): readonly PendingAction[] {
    const rows = this.#sql.awaiting.all({ tenantId, now, limit: awaitingLimit(NAME, limit) });
    return Object.freeze(rows.map(pendingActionOf));
  }

  /** Deletes the actions that expired longer than `expiredRetentionMs` before `now`; returns how many. */
  purgeExpiredSync(now: number): number {
    return this.purgeSync(now - this.#retentionMs);
  }

  /** Synchronous {@link PendingActionStore.purge}: deletes actions that expired before `before`. */
  purgeSync(before: number): number {
    return this.#sql.purge.run(before).changes;
  }

  insert(action: PendingAction): Promise<void> {
    return this.#write(undefined, () => this.insertSync(action));
  }

  async findByTokenHash(tokenHash: string): Promise<PendingAction | undefined> {
    return this.findByTokenHashSync(tokenHash);
  }

  async findById(id: string): Promise<PendingAction | undefined> {
    return this.findByIdSync(id);
  }

  /** Commits on its own, under the write lock. */
  claim(id: string, from: readonly PendingStatus[], claim: PendingClaim, now: number): Promise<boolean> {
    return this.#write(undefined, () => this.claimSync(id, from, claim, now));
  }

  /** Commits on its own, under the write lock. */
  renewClaim(id: string, fence: string, expiresAt: number): Promise<boolean> {
    return this.#write(undefined, () => this.renewClaimSync(id, fence, expiresAt));
  }

  /**
   * Inside a unit of work (`unit` given) the change, `set` included, joins its
   * transaction; else it commits on its own.
   */
  transition(
    id: string,
    from: readonly PendingStatus[],
    to: PendingStatus,
    unit?: unknown,
    set?: PendingActionUpdate,
  ): Promise<boolean> {
    return this.#write(unit, () => this.transitionSync(id, from, to, set));
  }

  async listAwaitingApproval(
    tenantId: string,
    now: number,
    limit: number,
  ): Promise<readonly PendingAction[]> {
    return this.listAwaitingApprovalSync(tenantId, now, limit);
  }

  purge(before: number): Promise<number> {
    return this.#write(undefined, () => this.purgeSync(before));
  }
}
