import type {
  PendingAction,
  PendingActionStore,
  PendingActionUpdate,
  PendingStatus,
} from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { duration, type SweepOptions, sweepBatch } from './internal/options.js';
import {
  approvalColumnsOf,
  awaitingLimit,
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
   * "expired" rather than "not found". Inserts sweep actions expired longer
   * ago than this. Default one hour.
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
});

/** Parameters of the compare-and-set; a `null` decision field keeps the column. */
interface TransitionParams extends ReturnType<typeof updateValuesOf> {
  readonly id: string;
  readonly from: string;
  readonly to: PendingStatus;
}

const NAME = 'SqlitePendingActionStore';

function preparePending(db: SqliteDatabase, batch: number, retentionMs: number) {
  const insert = db.prepare<PendingActionColumns>(
    `INSERT INTO gatehouse_pending_actions (id, token_hash, connection_id, tenant_id, tool, arguments,
       arguments_digest, content_hash, summary, created_at, expires_at, status, approval, creator_id,
       result, decided_by, decided_at)
     VALUES (@id, @token_hash, @connection_id, @tenant_id, @tool, @arguments, @arguments_digest,
       @content_hash, @summary, @created_at, @expires_at, @status, @approval, @creator_id, @result,
       @decided_by, @decided_at)
     ON CONFLICT DO NOTHING`,
  );
  const sweep = db.prepare<[number, number]>(
    `DELETE FROM gatehouse_pending_actions WHERE id IN (SELECT id FROM gatehouse_pending_actions
     WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`,
  );
  return {
    insert: db.transaction((action: PendingAction): void => {
      if (insert.run(toRow(action)).changes !== 1) {
        throw new Error('A pending action with this id or token already exists.');
      }
      sweep.run(action.createdAt - retentionMs, batch);
    }),
    find: db.prepare<[string], PendingActionColumns>(
      'SELECT * FROM gatehouse_pending_actions WHERE token_hash = ?',
    ),
    findById: db.prepare<[string], PendingActionColumns>(
      'SELECT * FROM gatehouse_pending_actions WHERE id = ?',
    ),
    transition: db.prepare<TransitionParams>(
      `UPDATE gatehouse_pending_actions SET status = @to, result = coalesce(@result, result),
         decided_by = coalesce(@decided_by, decided_by), decided_at = coalesce(@decided_at, decided_at)
       WHERE id = @id AND status IN (SELECT value FROM json_each(@from))`,
    ),
    awaiting: db.prepare<[string, number, number], PendingActionColumns>(
      `SELECT * FROM gatehouse_pending_actions
       WHERE tenant_id = ? AND approval = 'person' AND status = 'pending' AND expires_at > ?
       ORDER BY created_at, id LIMIT ?`,
    ),
    purge: db.prepare<[number]>('DELETE FROM gatehouse_pending_actions WHERE expires_at < ?'),
  };
}

/**
 * A {@link PendingActionStore} in `gatehouse_pending_actions` (I9). `insert`
 * refuses a second action with the same id or token hash (`ON CONFLICT DO
 * NOTHING` and a row count); `transition` is one compare-and-set `UPDATE … WHERE
 * id = ? AND status IN (…)`, so of many concurrent confirmations, across
 * processes, exactly one claims the action, and only that one writes its
 * decision fields (`set`). `findById` and `listAwaitingApproval` serve
 * approval by a person. Expired actions stay findable for
 * `expiredRetentionMs` (the guard answers "expired"), then inserts sweep them.
 *
 * @example
 * const pending = new SqlitePendingActionStore(db, { expiredRetentionMs: 3_600_000 });
 */
export class SqlitePendingActionStore implements PendingActionStore {
  readonly #sql: ReturnType<typeof preparePending>;
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: SqlitePendingActionStoreOptions = {}) {
    this.#write = writer(db, NAME, options);
    assertSchema(db, NAME);
    const retentionMs = duration(NAME, 'expiredRetentionMs', options.expiredRetentionMs ?? 3_600_000);
    this.#sql = preparePending(db, sweepBatch(NAME, options.sweepBatch), retentionMs);
  }

  /** Synchronous {@link PendingActionStore.insert}; throws on a duplicate id or token hash. */
  insertSync(action: PendingAction): void {
    this.#sql.insert.immediate(action);
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
   * Synchronous {@link PendingActionStore.transition}: true only for the one
   * caller that moved it; `set` is written in the same `UPDATE`, so a losing
   * caller writes nothing.
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
   * `person` actions still `pending` and unexpired at `now`, oldest first (then
   * by id), at most `limit`. Refuses a `limit` that is not a non-negative integer.
   */
  listAwaitingApprovalSync(tenantId: string, now: number, limit: number): readonly PendingAction[] {
    const rows = this.#sql.awaiting.all(tenantId, now, awaitingLimit(NAME, limit));
    return Object.freeze(rows.map(pendingActionOf));
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
