import { sql } from 'kysely';
import type { BookingApp } from '../app.js';

/** The columns of core's `gatehouse_credentials` table the tokens page shows (never the hash). */
type CredentialTable = {
  gatehouse_credentials: {
    id: string;
    tenant_ids: string | readonly string[];
    creator_id: string;
    rights: string | readonly string[];
    client_label: string;
    toolset: string | null;
    created_at: number;
    expires_at: number | null;
    revoked_at: number | null;
  };
};

/** One MCP token as the tokens page lists it. */
export interface TokenRow {
  readonly id: string;
  /** The workspaces it is for (one, I3). */
  readonly tenantIds: readonly string[];
  readonly creatorId: string;
  readonly rights: readonly string[];
  readonly clientLabel: string;
  readonly toolset: string | null;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
}

const listOf = (value: string | readonly string[]): readonly string[] =>
  typeof value === 'string' ? (JSON.parse(value) as string[]) : [...value];

const TOKENS_SHOWN = 200;

/** Whether a credential's tenant list holds `workspaceId`, on each engine. */
function inTenant(app: BookingApp, workspaceId: string) {
  return app.database.engine === 'postgres'
    ? sql<boolean>`${workspaceId} = ANY(tenant_ids)`
    : sql<boolean>`EXISTS (SELECT 1 FROM json_each(tenant_ids) WHERE value = ${workspaceId})`;
}

/**
 * MCP tokens newest first (at most 200): those of the workspace (all of
 * them, or only `creatorId`'s), or with `elsewhere`, `creatorId`'s tokens
 * for other workspaces than this one (their grants as a member there). Read
 * from `gatehouse_credentials` (the credential store has no list), the
 * tenant matched inside the list column on each engine.
 */
export async function listTokens(
  app: BookingApp,
  workspaceId: string,
  creatorId: string | undefined,
  elsewhere = false,
): Promise<readonly TokenRow[]> {
  const db = app.database.reader.withTables<CredentialTable>();
  let query = db
    .selectFrom('gatehouse_credentials')
    .select([
      'id',
      'tenant_ids',
      'creator_id',
      'rights',
      'client_label',
      'toolset',
      'created_at',
      'expires_at',
      'revoked_at',
    ])
    .where(elsewhere ? sql<boolean>`NOT (${inTenant(app, workspaceId)})` : inTenant(app, workspaceId));
  if (creatorId !== undefined) query = query.where('creator_id', '=', creatorId);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(TOKENS_SHOWN).execute();
  return rows.map((row) => ({
    id: row.id,
    tenantIds: listOf(row.tenant_ids),
    creatorId: row.creator_id,
    rights: listOf(row.rights),
    clientLabel: row.client_label,
    toolset: row.toolset,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  }));
}
