import type {
  PendingAction,
  PendingActionStore,
  PendingActionUpdate,
  PendingClaim,
  PendingStatus,
} from '@gatehousejs/core';
import type pg from 'pg';
import { duration, type SweepOptions, sweepBatch } from '../internal/options.js';
import {
  approvalColumnsOf,
  awaitingLimit,
  claimColumnsOf,
  type PendingActionColumns,
  pendingActionOf,
  updateValuesOf,
} from '../internal/rows.js';
import { inBatches, on, prepared } from './sql.js';

/** Options of {@link PostgresPendingActionStore}. */
export interface PostgresPendingActionStoreOptions extends SweepOptions {
  /**
   * How long an expired action stays findable, so a late confirmation answers
   * "expired" rather than "not found"; `purgeExpired(now)` deletes actions
   * expired longer ago than this. Default one hour.
   */
  readonly expiredRetentionMs?: number;
}

const NAME = 'PostgresPendingActionStore';

const COLUMNS = `id, token_hash, connection_id, tenant_id, tool,
    arguments, arguments_digest, content_hash, summary, created_at, expires_at, status, approval,
    creator_id, result, decided_by, decided_at, claim_fence, claim_expires_at`;

const INSERT = prepared(`INSERT INTO gatehouse_pending_actions (${COLUMNS})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
  ON CONFLICT DO NOTHING`);

/** A `claimed` row whose claim lapsed at `now` (NULL: written without a lease, lapsed at once). */
const lapsed = (now: string) =>
  `(status = 'claimed' AND (claim_expires_at IS NULL OR claim_expires_at <= ${now}))`;

/** Claims from one of the statuses, or takes over a lapsed claim; under concurrent updates of the row, one wins. */
const CLAIM =
  prepared(`UPDATE gatehouse_pending_actions SET status = 'claimed', claim_fence = $2, claim_expires_at = $3
  WHERE id = $1 AND (status = ANY($4::text[]) OR ${lapsed('$5::bigint')})`);

const RENEW_CLAIM = prepared(`UPDATE gatehouse_pending_actions SET claim_expires_at = $3
  WHERE id = $1 AND status = 'claimed' AND claim_fence = $2`);

/**
 * The compare-and-set; a NULL decision parameter keeps the column. A fence
 * ($7) moves a `claimed` row only for the claim holding it; every move clears the claim.
 */
const TRANSITION =
  prepared(`UPDATE gatehouse_pending_actions SET status = $1, result = COALESCE($4::text, result),
    decided_by = COALESCE($5::text, decided_by), decided_at = COALESCE($6::bigint, decided_at),
    claim_fence = NULL, claim_expires_at = NULL
  WHERE id = $2 AND status = ANY($3::text[])
    AND ($7::text IS NULL OR status <> 'claimed' OR claim_fence = $7::text)`);

/** Ties on `created_at` break by id in byte order, as the memory store compares ids. */
const BY_TOKEN_HASH = prepared(`SELECT ${COLUMNS} FROM gatehouse_pending_actions WHERE token_hash = $1`);
const BY_ID = prepared(`SELECT ${COLUMNS} FROM gatehouse_pending_actions WHERE id = $1`);

const AWAITING = `SELECT ${COLUMNS} FROM gatehouse_pending_actions
  WHERE tenant_id = $1 AND approval = 'person' AND expires_at > $2
    AND (status = 'pending' OR ${lapsed('$2')})
  ORDER BY created_at, id COLLATE "C" LIMIT $3`;

const SWEEP = `DELETE FROM gatehouse_pending_actions WHERE id IN (SELECT id FROM gatehouse_pending_actions
  WHERE expires_at < $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;

/**
 * A {@link PendingActionStore} in the PostgreSQL table
 * `gatehouse_pending_actions` (I9). `insert` refuses a second action with the
 * same id or token hash; `claim`, `renewClaim` and `transition` are each one
 * compare-and-set `UPDATE … WHERE id = $1 AND …`, so of many concurrent
 * confirmations, across processes, exactly one claims the action (or takes
 * over a claim that lapsed), a fenced transition moves it only for the claim
 * still holding it (inside the unit of work when given its client), and only
 * the winner writes its decision fields (`set`). `claim` and `renewClaim`
 * commit on their own.
 * `findById` and `listAwaitingApproval` serve approval by a person. Expired
 * actions stay findable for `expiredRetentionMs`; `purgeExpired(now)` (or the
 * stores' `purgeExpired`) deletes them after that, never a request.
 * Requires `migrateGatehouseSchemaPostgres(pool)` first.
 *
 * @example
 * const pending = new PostgresPendingActionStore(pool, { expiredRetentionMs: 3_600_000 });
 */
export class PostgresPendingActionStore implements PendingActionStore {
  readonly #pool: pg.Pool;
  readonly #batch: number;
  readonly #retentionMs: number;

  constructor(pool: pg.Pool, options: PostgresPendingActionStoreOptions = {}) {
    this.#pool = pool;
    this.#batch = sweepBatch(NAME, options.sweepBatch);
    this.#retentionMs = duration(NAME, 'expiredRetentionMs', options.expiredRetentionMs ?? 3_600_000);
  }

  async insert(action: PendingAction): Promise<void> {
    const approval = approvalColumnsOf(action);
    const claim = claimColumnsOf(action);
    const inserted = await this.#pool.query({
      ...INSERT,
      values: [
        action.id,
        action.tokenHash,
        action.connectionId,
        action.tenantId,
        action.tool,
        JSON.stringify(action.arguments),
        action.argumentsDigest,
        action.contentHash,
        action.summary,
        action.createdAt,
        action.expiresAt,
        action.status,
        approval.approval,
        approval.creator_id,
        approval.result,
        approval.decided_by,
        approval.decided_at,
        claim.claim_fence,
        claim.claim_expires_at,
      ],
    });
    if (inserted.rowCount !== 1) throw new Error('A pending action with this id or token already exists.');
  }

  async findByTokenHash(tokenHash: string): Promise<PendingAction | undefined> {
    const found = await this.#pool.query<PendingActionColumns>({ ...BY_TOKEN_HASH, values: [tokenHash] });
    const row = found.rows[0];
    return row ? pendingActionOf(row) : undefined;
  }

  async findById(id: string): Promise<PendingAction | undefined> {
    const found = await this.#pool.query<PendingActionColumns>({ ...BY_ID, values: [id] });
    const row = found.rows[0];
    return row ? pendingActionOf(row) : undefined;
  }

  async claim(
    id: string,
    from: readonly PendingStatus[],
    claim: PendingClaim,
    now: number,
  ): Promise<boolean> {
    const claimed = await this.#pool.query({
      ...CLAIM,
      values: [id, claim.fence, claim.expiresAt, [...from], now],
    });
    return claimed.rowCount === 1;
  }

  async renewClaim(id: string, fence: string, expiresAt: number): Promise<boolean> {
    const renewed = await this.#pool.query({ ...RENEW_CLAIM, values: [id, fence, expiresAt] });
    return renewed.rowCount === 1;
  }

  /**
   * Inside a unit of work (`unit` given) the change, `set` included, joins its
   * transaction; else it commits on its own. `set` is written in the same
   * `UPDATE` as the status, so a losing caller writes nothing.
   */
  async transition(
    id: string,
    from: readonly PendingStatus[],
    to: PendingStatus,
    unit?: unknown,
    set?: PendingActionUpdate,
  ): Promise<boolean> {
    if (from.length === 0) return false;
    const values = updateValuesOf(set);
    const moved = await on(this.#pool, unit, NAME).query({
      ...TRANSITION,
      values: [to, id, [...from], values.result, values.decided_by, values.decided_at, values.fence],
    });
    return moved.rowCount === 1;
  }

  /**
   * The tenant's `person` actions still `pending` (or `claimed` by a claim
   * that lapsed at `now`) and unexpired at `now`, oldest first (then by id),
   * at most `limit`. Refuses a `limit` that is not a non-negative integer.
   */
  async listAwaitingApproval(
    tenantId: string,
    now: number,
    limit: number,
  ): Promise<readonly PendingAction[]> {
    const found = await this.#pool.query<PendingActionColumns>(AWAITING, [
      tenantId,
      now,
      awaitingLimit(NAME, limit),
    ]);
    return Object.freeze(found.rows.map(pendingActionOf));
  }

  /** Deletes the actions that expired longer than `expiredRetentionMs` before `now`; returns how many. */
  purgeExpired(now: number): Promise<number> {
    return this.purge(now - this.#retentionMs);
  }

  /** Deletes actions that expired before `before`, `sweepBatch` rows per statement; returns how many. */
  purge(before: number): Promise<number> {
    return inBatches(() => this.#sweep(before), this.#batch);
  }

  async #sweep(before: number): Promise<number> {
    return (await this.#pool.query(SWEEP, [before, this.#batch])).rowCount ?? 0;
  }
}
