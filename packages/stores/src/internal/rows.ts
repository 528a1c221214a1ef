import {
  type ApprovalMode,
  type AuditRow,
  ConfigurationError,
  type CredentialRecord,
  type JsonObject,
  type PendingAction,
  type PendingActionUpdate,
  type PendingStatus,
} from '@gatehousejs/core';

/**
 * A list column as the engine returns it: JSON text on SQLite, an array
 * on PostgreSQL (`text[]`, `jsonb`). Both become a frozen array.
 */
export type ListColumn = string | readonly string[];

const listOf = (value: ListColumn): readonly string[] =>
  Object.freeze(typeof value === 'string' ? (JSON.parse(value) as string[]) : [...value]);

/** A row of `gatehouse_pending_actions`, the same columns on both engines. */
export interface PendingActionColumns {
  readonly id: string;
  readonly token_hash: string;
  readonly connection_id: string;
  readonly tenant_id: string;
  readonly tool: string;
  readonly arguments: string;
  readonly arguments_digest: string;
  readonly content_hash: string;
  readonly summary: string;
  readonly created_at: number;
  readonly expires_at: number;
  readonly status: PendingStatus;
  /** `model` unless a person decides (schema: SQLite 3, PostgreSQL 2); written as `model` when the action has none. */
  readonly approval: ApprovalMode;
  readonly creator_id: string | null;
  /** JSON text of the presented result, once a person's approval executed the action. */
  readonly result: string | null;
  readonly decided_by: string | null;
  readonly decided_at: number | null;
  /**
   * The fencing token of the claim holding a `claimed` action (schema: SQLite 4,
   * PostgreSQL 3); NULL otherwise. Never read back: only compared.
   */
  readonly claim_fence: string | null;
  /** When that claim lapses unless renewed; NULL on a `claimed` row written without a lease (lapsed at once). */
  readonly claim_expires_at: number | null;
}

/**
 * The approval columns of a row as {@link PendingAction} fields, each present
 * only when set: a model action has none, so it reads back exactly as inserted.
 */
const approvalFieldsOf = (row: PendingActionColumns): Partial<PendingAction> => ({
  ...(row.approval === 'person' ? { approval: row.approval } : {}),
  ...(row.creator_id === null ? {} : { creatorId: row.creator_id }),
  ...(row.result === null ? {} : { result: JSON.parse(row.result) as JsonObject }),
  ...(row.decided_by === null ? {} : { decidedBy: row.decided_by }),
  ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
});

/** The columns an action's approval fields are written to (`approval` is `model` when absent). */
export const approvalColumnsOf = (
  action: PendingAction,
): Pick<PendingActionColumns, 'approval' | 'creator_id' | 'result' | 'decided_by' | 'decided_at'> => ({
  approval: action.approval ?? 'model',
  creator_id: action.creatorId ?? null,
  result: action.result === undefined ? null : JSON.stringify(action.result),
  decided_by: action.decidedBy ?? null,
  decided_at: action.decidedAt ?? null,
});

/**
 * The claim columns an action is inserted with: its `claimExpiresAt`, and no
 * fence (only `claim` writes one, so no fenced move can name it).
 */
export const claimColumnsOf = (
  action: PendingAction,
): Pick<PendingActionColumns, 'claim_fence' | 'claim_expires_at'> => ({
  claim_fence: null,
  claim_expires_at: action.claimExpiresAt ?? null,
});

/**
 * The values a transition writes with the status (`null` keeps the column as
 * it is), and `fence`: `null` for an unfenced transition.
 */
export const updateValuesOf = (set: PendingActionUpdate = {}) => ({
  result: set.result === undefined ? null : JSON.stringify(set.result),
  decided_by: set.decidedBy ?? null,
  decided_at: set.decidedAt ?? null,
  fence: set.fence ?? null,
});

/** Checks the `limit` of `listAwaitingApproval`: a non-negative integer. */
export function awaitingLimit(store: string, limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new ConfigurationError(
      `${store}: listAwaitingApproval got limit ${String(limit)}; pass a non-negative integer (e.g. 50).`,
    );
  }
  return limit;
}

/** The pending action a row holds; fields the row leaves empty are absent, never `undefined`. */
export const pendingActionOf = (row: PendingActionColumns): PendingAction =>
  Object.freeze({
    id: row.id,
    tokenHash: row.token_hash,
    connectionId: row.connection_id,
    tenantId: row.tenant_id,
    tool: row.tool,
    arguments: JSON.parse(row.arguments) as JsonObject,
    argumentsDigest: row.arguments_digest,
    contentHash: row.content_hash,
    summary: row.summary,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    status: row.status,
    ...approvalFieldsOf(row),
    ...(row.claim_expires_at === null ? {} : { claimExpiresAt: row.claim_expires_at }),
  });

/** A row of `gatehouse_audit`; `object_ids` is a {@link ListColumn}. */
export interface AuditColumns<TList extends ListColumn = ListColumn> {
  readonly id: string;
  readonly at: number;
  readonly channel: string;
  readonly tenant_id: string | null;
  readonly connection_id: string | null;
  readonly client_name: string | null;
  readonly actor_id: string | null;
  readonly action: string;
  readonly outcome: AuditRow['outcome'];
  readonly object_ids: TList;
  readonly note: string | null;
}

/** The audit row a row of the table holds. */
export const auditRowOf = (record: AuditColumns): AuditRow =>
  Object.freeze({
    id: record.id,
    at: record.at,
    channel: record.channel,
    tenantId: record.tenant_id,
    connectionId: record.connection_id,
    clientName: record.client_name,
    actorId: record.actor_id,
    action: record.action,
    outcome: record.outcome,
    objectIds: listOf(record.object_ids),
    note: record.note,
  });

/** A row of `gatehouse_credentials`; `tenant_ids` and `rights` are {@link ListColumn}s. */
export interface CredentialColumns<TList extends ListColumn = ListColumn> {
  readonly id: string;
  readonly token_hash: string;
  readonly tenant_ids: TList;
  readonly creator_id: string;
  readonly rights: TList;
  readonly client_label: string;
  readonly toolset: string | null;
  readonly created_at: number;
  readonly expires_at: number | null;
  readonly revoked_at: number | null;
}

/** The credential a row holds (its token hash, never a token). */
export const credentialOf = (row: CredentialColumns): CredentialRecord =>
  Object.freeze({
    id: row.id,
    tokenHash: row.token_hash,
    tenantIds: listOf(row.tenant_ids),
    creatorId: row.creator_id,
    rights: listOf(row.rights),
    clientLabel: row.client_label,
    toolset: row.toolset,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  });
