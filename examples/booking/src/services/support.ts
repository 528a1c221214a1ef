import { Temporal } from 'temporal-polyfill';
import type { BookingDb } from '../db/tables.js';
import { type DomainDetails, DomainError } from '../domain/errors.js';
import type { Actor, Booking, Customer, Workspace } from '../domain/model.js';

/**
 * The `version` a caller read (I12): a hash of what the presenters show and
 * the row's revision, so it never repeats for one object and the UI, the API
 * and MCP agree on it. The composition root passes the presenters' `versionOf`.
 */
export interface Versions {
  booking(booking: Booking): string;
  customer(customer: Customer): string;
}

/** What every service needs: the connection, the clock, the version definition and how to write. */
export interface ServiceDeps {
  /** Where the services read (and, inside a transaction, write). */
  readonly db: BookingDb;
  readonly clock: () => Date;
  readonly versions: Versions;
  /**
   * Whether a check-then-act read locks the row it checks (`SELECT … FOR UPDATE`),
   * so the rule holds across processes: PostgreSQL inside a unit of work.
   * SQLite's writer lock already serializes writers, so it never needs to.
   */
  readonly locksRows: boolean;
  /**
   * Runs `work` as one transaction with deps bound to it: a savepoint inside
   * the unit of work these deps belong to, or a new unit of work (waiting for
   * the writer lock without blocking) when they belong to none.
   */
  transaction<T>(work: (deps: ServiceDeps) => Promise<T>): Promise<T>;
}

/** An id as it may appear in a message: quoted and bounded, so odd input cannot shape the text. */
export const quoted = (id: string): string => JSON.stringify(id.slice(0, 64));

/** `not_found` for an id outside the caller's workspace: points to the find operation, never to a create (I18). */
export function notFound(
  kind: string,
  id: string,
  findTool: string,
  details: DomainDetails = {},
): DomainError {
  return new DomainError({
    kind: 'not_found',
    message: `${kind} ${quoted(id)} does not exist in this workspace.`,
    fix: `Search with ${findTool} and use an id it returns.`,
    next: { operation: findTool },
    details: { id: id.slice(0, 64), ...details },
  });
}

/** `invalid_arguments` for a business rule a value breaks. */
export function invalid(message: string, fix: string, details: DomainDetails = {}): DomainError {
  return new DomainError({ kind: 'rule_broken', message, fix, details });
}

const workspaces = new WeakMap<Actor, Promise<Workspace>>();

async function readWorkspace(deps: ServiceDeps, actor: Actor): Promise<Workspace> {
  const workspace = await deps.db
    .selectFrom('workspaces')
    .select(['id', 'name', 'zone', 'currency'])
    .where('id', '=', actor.workspaceId)
    .executeTakeFirst();
  // it exists for every authenticated actor
  if (!workspace) throw new Error('The workspace of an authenticated actor is missing.');
  return workspace;
}

/**
 * The workspace an actor acts in, read once per actor: the services of one
 * call (or one API request) share their actor, so they share this read.
 */
export function workspaceOf(deps: ServiceDeps, actor: Actor): Promise<Workspace> {
  let workspace = workspaces.get(actor);
  if (!workspace) {
    workspace = readWorkspace(deps, actor);
    workspaces.set(actor, workspace);
    workspace.catch(() => workspaces.delete(actor));
  }
  return workspace;
}

/** Epoch milliseconds as a zoned date-time. */
export const zoned = (ms: number, zone: string): Temporal.ZonedDateTime =>
  Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);

/** A calendar date in words, built once: its day is read in UTC from the date's own fields. */
const SPOKEN_DATE = new Intl.DateTimeFormat('en-GB', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A local time for people: `Tuesday, 5 May 2026, 09:00 (Europe/Berlin)`. */
export function spokenTime(time: Temporal.ZonedDateTime): string {
  const date = SPOKEN_DATE.format(Date.UTC(time.year, time.month - 1, time.day));
  return `${date}, ${time.toPlainTime().toString({ smallestUnit: 'minute' })} (${time.timeZoneId})`;
}
