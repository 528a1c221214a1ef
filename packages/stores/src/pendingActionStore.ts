import type { PendingAction, PendingActionStore, PendingStatus } from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { duration, type SweepOptions, sweepBatch } from './internal/options.js';
import { type PendingActionColumns, pendingActionOf } from './internal/rows.js';
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
});

function preparePending(db: SqliteDatabase, batch: number, retentionMs: number) {
  const insert = db.prepare<PendingActionColumns>(
    `INSERT INTO gatehouse_pending_actions (id, token_hash, connection_id, tenant_id, tool, arguments,
       arguments_digest, content_hash, summary, created_at, expires_at, status)
     VALUES (@id, @token_hash, @connection_id, @tenant_id, @tool, @arguments, @arguments_digest,
       @content_hash, @summary, @created_at, @expires_at, @status)
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
    transition: db.prepare<[PendingStatus, string, string]>(
      `UPDATE gatehouse_pending_actions SET status = ?
       WHERE id = ? AND status IN (SELECT value FROM json_each(?))`,
    ),
    purge: db.prepare<[number]>('DELETE FROM gatehouse_pending_actions WHERE expires_at < ?'),
  };
}

/**
 * A {@link PendingActionStore} in `gatehouse_pending_actions` (I9). `insert`
 * refuses a second action with the same id or token hash (`ON CONFLICT DO
 * NOTHING` and a row count); `transition` is one compare-and-set `UPDATE … WHERE
 * id = ? AND status IN (…)`, so of many concurrent confirmations, across
 * processes, exactly one claims the action. Expired actions stay findable for
 * `expiredRetentionMs` (the guard answers "expired"), then inserts sweep them.
 *
 * @example
 * const pending = new SqlitePendingActionStore(db, { expiredRetentionMs: 3_600_000 });
 */
export class SqlitePendingActionStore implements PendingActionStore {
  readonly #sql: ReturnType<typeof preparePending>;
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: SqlitePendingActionStoreOptions = {}) {
    const name = 'SqlitePendingActionStore';
    this.#write = writer(db, name, options);
    assertSchema(db, name);
    const retentionMs = duration(name, 'expiredRetentionMs', options.expiredRetentionMs ?? 3_600_000);
    this.#sql = preparePending(db, sweepBatch(name, options.sweepBatch), retentionMs);
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

  /** Synchronous {@link PendingActionStore.transition}: true only for the one caller that moved it. */
  transitionSync(id: string, from: readonly PendingStatus[], to: PendingStatus): boolean {
    if (from.length === 0) return false;
    return this.#sql.transition.run(to, id, JSON.stringify(from)).changes === 1;
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

  /** Inside a unit of work (`unit` given) the change joins its transaction; else it commits on its own. */
  transition(
    id: string,
    from: readonly PendingStatus[],
    to: PendingStatus,
    unit?: unknown,
  ): Promise<boolean> {
    return this.#write(unit, () => this.transitionSync(id, from, to));
  }

  purge(before: number): Promise<number> {
    return this.#write(undefined, () => this.purgeSync(before));
  }
}
