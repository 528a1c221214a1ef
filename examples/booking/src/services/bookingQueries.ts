import type { SqliteDatabase } from '@gatehousejs/stores';
import type { Booking, BookingStatus } from '../domain/model.js';
import { zoned } from './support.js';

/** A booking row joined with the names it refers to. */
export interface BookingRow {
  readonly id: string;
  readonly customer_id: string;
  readonly customer_name: string;
  readonly technician_id: string | null;
  readonly technician_name: string | null;
  readonly starts_at: number;
  readonly zone: string;
  readonly duration_minutes: number;
  readonly status: BookingStatus;
  readonly price_minor: number;
  readonly currency: string;
  readonly revision: number;
  readonly created_by: string;
  readonly created_at: number;
}

/** Filters of a booking search; every one is optional and ANDed. */
export interface BookingFilter {
  readonly customerId?: string | undefined;
  readonly technicianId?: string | undefined;
  readonly statuses?: readonly BookingStatus[] | undefined;
  readonly fromMs?: number | undefined;
  readonly toMs?: number | undefined;
}

const SELECT = `SELECT b.id, b.customer_id, c.name AS customer_name, b.technician_id, t.name AS technician_name,
  b.starts_at, b.zone, b.duration_minutes, b.status, b.price_minor, b.currency, b.revision, b.created_by, b.created_at
  FROM bookings b JOIN customers c ON c.id = b.customer_id LEFT JOIN technicians t ON t.id = b.technician_id`;

/** A row as the services hand it out: times zoned in the booking's zone, price as money. */
export function toBooking(row: BookingRow): Booking {
  const startsAt = zoned(row.starts_at, row.zone);
  return {
    id: row.id,
    customer: { id: row.customer_id, name: row.customer_name },
    technician:
      row.technician_id === null
        ? null
        : { id: row.technician_id, name: row.technician_name ?? row.technician_id },
    startsAt,
    endsAt: startsAt.add({ minutes: row.duration_minutes }),
    durationMinutes: row.duration_minutes,
    status: row.status,
    price: { minor: row.price_minor, currency: row.currency },
    createdBy: row.created_by,
    createdAt: zoned(row.created_at, row.zone),
    revision: row.revision,
  };
}

interface FilterParams {
  ws: string;
  customer?: string;
  technician?: string;
  statuses?: string;
  from?: number;
  to?: number;
}

/** The WHERE clause and parameters of a filter, always scoped to the workspace (I3). */
function where(workspaceId: string, filter: BookingFilter): { sql: string; params: FilterParams } {
  const parts = ['b.workspace_id = @ws'];
  const params: FilterParams = { ws: workspaceId };
  if (filter.customerId !== undefined) {
    parts.push('b.customer_id = @customer');
    params.customer = filter.customerId;
  }
  if (filter.technicianId !== undefined) {
    parts.push('b.technician_id = @technician');
    params.technician = filter.technicianId;
  }
  if (filter.statuses !== undefined) {
    parts.push('b.status IN (SELECT value FROM json_each(@statuses))');
    params.statuses = JSON.stringify(filter.statuses);
  }
  if (filter.fromMs !== undefined) {
    parts.push('b.starts_at >= @from');
    params.from = filter.fromMs;
  }
  if (filter.toMs !== undefined) {
    parts.push('b.starts_at < @to');
    params.to = filter.toMs;
  }
  return { sql: parts.join(' AND '), params };
}

/** Booking reads on one handle, scoped to one workspace. */
export class BookingQueries {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly workspaceId: string,
  ) {}

  /** Bookings matching `filter`, by start time, at most `limit`. */
  find(filter: BookingFilter, limit: number): Booking[] {
    const { sql, params } = where(this.workspaceId, filter);
    const rows = this.db
      .prepare<FilterParams & { limit: number }, BookingRow>(
        `${SELECT} WHERE ${sql} ORDER BY b.starts_at, b.id LIMIT @limit`,
      )
      .all({ ...params, limit });
    return rows.map(toBooking);
  }

  /** How many bookings match `filter`. */
  count(filter: BookingFilter): number {
    const { sql, params } = where(this.workspaceId, filter);
    return (
      this.db
        .prepare<FilterParams, { n: number }>(`SELECT count(*) AS n FROM bookings b WHERE ${sql}`)
        .get(params)?.n ?? 0
    );
  }

  /** One booking of the workspace, or undefined. */
  get(id: string): Booking | undefined {
    const row = this.db
      .prepare<[string, string], BookingRow>(`${SELECT} WHERE b.id = ? AND b.workspace_id = ?`)
      .get(id, this.workspaceId);
    return row && toBooking(row);
  }

  /** The first live booking of a technician overlapping [startMs, endMs), other than `except`. */
  overlapping(
    technicianId: string,
    startMs: number,
    endMs: number,
    except: readonly string[],
  ): Booking | undefined {
    const row = this.db
      .prepare<{ ws: string; tech: string; start: number; end: number; except: string }, BookingRow>(
        `${SELECT} WHERE b.workspace_id = @ws AND b.technician_id = @tech AND b.status IN ('scheduled', 'confirmed')
         AND b.starts_at < @end AND b.starts_at + b.duration_minutes * 60000 > @start
         AND b.id NOT IN (SELECT value FROM json_each(@except)) ORDER BY b.starts_at LIMIT 1`,
      )
      .get({
        ws: this.workspaceId,
        tech: technicianId,
        start: startMs,
        end: endMs,
        except: JSON.stringify(except),
      });
    return row && toBooking(row);
  }
}
