import type { AuditRow, CredentialRecord, JsonObject, PendingAction, PendingStatus } from '@gatehousejs/core';

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
}

/** The pending action a row holds. */
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
