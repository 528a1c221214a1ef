import type { AuditRow } from '@gatehousejs/core';
import type { BookingApp } from '../app.js';

/** The columns of core's `gatehouse_audit` table (the same on both engines but `object_ids`). */
type AuditTable = {
  gatehouse_audit: {
    id: string;
    at: number;
    channel: string;
    tenant_id: string | null;
    connection_id: string | null;
    client_name: string | null;
    actor_id: string | null;
    action: string;
    outcome: AuditRow['outcome'];
    /** JSON text on SQLite, `text[]` on PostgreSQL. */
    object_ids: string | readonly string[];
    note: string | null;
  };
};

/** Filters of the audit page; every one optional but the workspace. */
export interface AuditFilter {
  /** `null`: rows with no tenant (the global switch). */
  readonly tenantId: string | null;
  readonly channel?: string | undefined;
  readonly actorId?: string | undefined;
  readonly action?: string | undefined;
  /** Epoch milliseconds, inclusive. */
  readonly from?: number | undefined;
  /** Epoch milliseconds, exclusive. */
  readonly to?: number | undefined;
  /** Only rows older than this row id (the next page). */
  readonly before?: string | undefined;
  readonly limit: number;
}

const listOf = (value: string | readonly string[]): readonly string[] => {
  if (typeof value !== 'string') return [...value];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
};

/**
 * Reads audit rows of one workspace, newest first, with the page's filters,
 * straight from `gatehouse_audit` through Kysely (the AuditStore interface
 * lists by tenant and connection only). Works on SQLite and PostgreSQL.
 */
export async function readAudit(app: BookingApp, filter: AuditFilter): Promise<readonly AuditRow[]> {
  const db = app.database.reader.withTables<AuditTable>();
  let query = db.selectFrom('gatehouse_audit').selectAll('gatehouse_audit');
  query =
    filter.tenantId === null
      ? query.where('tenant_id', 'is', null)
      : query.where('tenant_id', '=', filter.tenantId);
  if (filter.channel) query = query.where('channel', '=', filter.channel);
  if (filter.actorId) query = query.where('actor_id', '=', filter.actorId);
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('at', '<', filter.to);
  if (filter.before) query = query.where('id', '<', filter.before);
  const rows = await query.orderBy('id', 'desc').limit(filter.limit).execute();
  return rows.map((row) => ({
    id: row.id,
    at: Number(row.at),
    channel: row.channel,
    tenantId: row.tenant_id,
    connectionId: row.connection_id,
    clientName: row.client_name,
    actorId: row.actor_id,
    action: row.action,
    outcome: row.outcome,
    objectIds: listOf(row.object_ids),
    note: row.note,
  }));
}
