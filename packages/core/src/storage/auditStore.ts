import { newId } from '../internal/ids.js';

/** One audit row (I15): who did what through which channel. Never the arguments. */
export interface AuditRow {
  readonly id: string;
  readonly at: number;
  /** `mcp` for agent calls; hosts may record other channels (`api`, `cli`, `admin`). */
  readonly channel: string;
  readonly tenantId: string | null;
  readonly connectionId: string | null;
  readonly clientName: string | null;
  readonly actorId: string | null;
  /** The tool, or the administrative action (`switch.set`, `token.revoke`, …). */
  readonly action: string;
  readonly outcome: 'ok' | 'refused' | 'failed' | 'violation';
  /** Public ids of the objects touched. */
  readonly objectIds: readonly string[];
  /** Public, non-secret context (e.g. a switch's before/after, a `separate` reason). */
  readonly note: string | null;
}

/** Filters for {@link AuditStore.list}, all ANDed; an absent filter matches every row. Newest first. */
export interface AuditQuery {
  /** Only rows of this tenant; `null` for rows with no tenant (e.g. the global kill switch). */
  readonly tenantId?: string | null;
  /** Only rows of this connection. */
  readonly connectionId?: string;
  /** Only rows of this channel, exactly (`mcp`, `api`, …). */
  readonly channel?: string;
  /** Only rows of this actor, exactly. */
  readonly actorId?: string;
  /** Only rows of this tool or administrative action, exactly. */
  readonly action?: string;
  /** Only rows at or after this time (epoch ms, inclusive, on `at`). */
  readonly from?: number;
  /** Only rows before this time (epoch ms, exclusive, on `at`). */
  readonly to?: number;
  /** Only rows older than this row id (pagination cursor). */
  readonly before?: string;
  readonly limit: number;
}

/** Whether `row` passes every filter `query` gives. */
const matches = (row: AuditRow, query: AuditQuery): boolean =>
  (query.tenantId === undefined || row.tenantId === query.tenantId) &&
  (query.connectionId === undefined || row.connectionId === query.connectionId) &&
  (query.channel === undefined || row.channel === query.channel) &&
  (query.actorId === undefined || row.actorId === query.actorId) &&
  (query.action === undefined || row.action === query.action) &&
  (query.from === undefined || row.at >= query.from) &&
  (query.to === undefined || row.at < query.to) &&
  (query.before === undefined || row.id < query.before);

/**
 * Append-only audit rows. Ids must sort by time (ULIDs do). Core appends a
 * write's row inside the unit of work and passes its handle as `unit`: a
 * store in the host's database writes it in that transaction, so the row
 * and the write commit together.
 */
export interface AuditStore {
  append(row: AuditRow, unit?: unknown): Promise<void>;
  list(query: AuditQuery): Promise<readonly AuditRow[]>;
}

/** An {@link AuditStore} in process memory. */
export class MemoryAuditStore implements AuditStore {
  readonly #rows: AuditRow[] = [];

  /** Every row, oldest first (tests). */
  get rows(): readonly AuditRow[] {
    return this.#rows;
  }

  async append(row: AuditRow, _unit?: unknown): Promise<void> {
    this.#rows.push(Object.freeze({ ...row, objectIds: Object.freeze([...row.objectIds]) }));
  }

  async list(query: AuditQuery): Promise<readonly AuditRow[]> {
    const out: AuditRow[] = [];
    for (let i = this.#rows.length - 1; i >= 0 && out.length < query.limit; i--) {
      const row = this.#rows[i]!;
      if (matches(row, query)) out.push(row);
    }
    return out;
  }
}

/** The fields of a new audit row; the rest default to null or empty. */
export type AuditEntry = Pick<AuditRow, 'channel' | 'action' | 'outcome'> & Partial<Omit<AuditRow, 'id'>>;

/**
 * A complete audit row with a time-sortable id (ULID) and `at` = now, the
 * other fields defaulting to null or empty.
 */
export function auditRow(entry: AuditEntry, now: number = Date.now()): AuditRow {
  return {
    id: newId(now),
    at: now,
    tenantId: null,
    connectionId: null,
    clientName: null,
    actorId: null,
    objectIds: [],
    note: null,
    ...entry,
  };
}
