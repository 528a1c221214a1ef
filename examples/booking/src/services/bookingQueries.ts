import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { BookingDb, BookingTables } from '../db/tables.js';
import { type Booking, type BookingStatus, LIMITS } from '../domain/model.js';
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
  readonly status: string;
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

const LIVE: readonly BookingStatus[] = ['scheduled', 'confirmed'];

/** A row as the services hand it out: times zoned in the booking's zone, price as money. */
export function toBooking(row: BookingRow): Booking {
  const startsAt = zoned(Number(row.starts_at), row.zone);
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
    status: row.status as BookingStatus,
    price: { minor: Number(row.price_minor), currency: row.currency },
    createdBy: row.created_by,
    createdAt: zoned(Number(row.created_at), row.zone),
    revision: row.revision,
  };
}

/** Booking rows with their customer's and technician's names, always scoped to one workspace (I3). */
function selectBookings(db: BookingDb, workspaceId: string) {
  return db
    .selectFrom('bookings as b')
    .innerJoin('customers as c', 'c.id', 'b.customer_id')
    .leftJoin('technicians as t', 't.id', 'b.technician_id')
    .select([
      'b.id',
      'b.customer_id',
      'c.name as customer_name',
      'b.technician_id',
      't.name as technician_name',
      'b.starts_at',
      'b.zone',
      'b.duration_minutes',
      'b.status',
      'b.price_minor',
      'b.currency',
      'b.revision',
      'b.created_by',
      'b.created_at',
    ])
    .where('b.workspace_id', '=', workspaceId);
}

/** The `bookings as b` a filter reads. */
type WithBookings = { b: BookingTables['bookings'] };

/**
 * The condition of a filter on `bookings as b`, for any query over it: the
 * workspace always, then each filter given. Applied to the listing query
 * itself (not through `id IN (…)`), so the index on (workspace_id,
 * starts_at, id) walks in the listing's whole order and stops at the limit
 * however many bookings the workspace has.
 */
function conditionOf(workspaceId: string, filter: BookingFilter) {
  const { customerId, technicianId, statuses, fromMs, toMs } = filter;
  return <DB extends WithBookings, TB extends keyof DB>(builder: ExpressionBuilder<DB, TB>) => {
    const eb = builder as unknown as ExpressionBuilder<WithBookings, 'b'>;
    const all: Expression<SqlBool>[] = [eb('b.workspace_id', '=', workspaceId)];
    if (customerId !== undefined) all.push(eb('b.customer_id', '=', customerId));
    if (technicianId !== undefined) all.push(eb('b.technician_id', '=', technicianId));
    if (statuses !== undefined)
      all.push(statuses.length ? eb('b.status', 'in', statuses) : sql<boolean>`1 = 0`);
    if (fromMs !== undefined) all.push(eb('b.starts_at', '>=', fromMs));
    if (toMs !== undefined) all.push(eb('b.starts_at', '<', toMs));
    return eb.and(all);
  };
}

/** Booking reads on one connection, scoped to one workspace. */
export class BookingQueries {
  constructor(
    private readonly db: BookingDb,
    private readonly workspaceId: string,
  ) {}

  /** Bookings matching `filter`, by start time, at most `limit`. */
  async find(filter: BookingFilter, limit: number): Promise<Booking[]> {
    const rows = await selectBookings(this.db, this.workspaceId)
      .where(conditionOf(this.workspaceId, filter))
      .orderBy('b.starts_at')
      .orderBy('b.id')
      .limit(limit)
      .execute();
    return rows.map(toBooking);
  }

  /** How many bookings match `filter`. */
  async count(filter: BookingFilter): Promise<number> {
    const row = await this.db
      .selectFrom('bookings as b')
      .where(conditionOf(this.workspaceId, filter))
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * The id of a live booking of the customer starting at exactly `startMs`,
   * or undefined: one probe of the (workspace_id, customer_id, starts_at)
   * index, no join, for the duplicate check every create runs.
   */
  async liveIdAt(customerId: string, startMs: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('bookings')
      .select('id')
      .where('workspace_id', '=', this.workspaceId)
      .where('customer_id', '=', customerId)
      .where('starts_at', '=', startMs)
      .where('status', 'in', LIVE)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }

  /** One booking of the workspace, or undefined. */
  async get(id: string): Promise<Booking | undefined> {
    const row = await selectBookings(this.db, this.workspaceId).where('b.id', '=', id).executeTakeFirst();
    return row && toBooking(row);
  }

  /** The first live booking of a technician overlapping [startMs, endMs), other than `except`. */
  async overlapping(
    technicianId: string,
    startMs: number,
    endMs: number,
    except: readonly string[],
  ): Promise<Booking | undefined> {
    const row = await selectBookings(this.db, this.workspaceId)
      .where('b.technician_id', '=', technicianId)
      .where('b.status', 'in', LIVE)
      .where('b.starts_at', '<', endMs)
      // no booking lasts longer than the limit, so one that started earlier ended before startMs:
      // the range on (workspace_id, starts_at) stays a few hours wide however many bookings there are
      .where('b.starts_at', '>', startMs - LIMITS.maxDurationMinutes * 60_000)
      .where(sql<number>`b.starts_at + b.duration_minutes * 60000`, '>', startMs)
      .$if(except.length > 0, (q) => q.where('b.id', 'not in', except))
      .orderBy('b.starts_at')
      .limit(1)
      .executeTakeFirst();
    return row && toBooking(row);
  }
}
