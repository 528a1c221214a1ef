import { type Json, type JsonObject, ToolError } from '@gatehousejs/core';
import type { SqliteDatabase } from '@gatehousejs/stores';
import { Temporal } from 'temporal-polyfill';
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

/** What every service needs: the database handle, the clock and the version definition. */
export interface ServiceDeps {
  readonly db: SqliteDatabase;
  readonly clock: () => Date;
  readonly versions: Versions;
}

/** An id as it may appear in a message: quoted and bounded, so odd input cannot shape the text. */
export const quoted = (id: string): string => JSON.stringify(id.slice(0, 64));

/** `not_found` for an id outside the caller's workspace: points to the find tool, never to a create tool (I18). */
export function notFound(kind: string, id: string, findTool: string, details: JsonObject = {}): ToolError {
  return new ToolError({
    code: 'not_found',
    message: `${kind} ${quoted(id)} does not exist in this workspace.`,
    fix: `Search with ${findTool} and use an id it returns.`,
    next: { tool: findTool },
    details: { id: id.slice(0, 64), ...details },
  });
}

/** `invalid_arguments` for a business rule a value breaks. */
export function invalid(
  message: string,
  fix: string,
  details: { readonly [key: string]: Json } = {},
): ToolError {
  return new ToolError({ code: 'invalid_arguments', message, fix, details });
}

const workspaces = new WeakMap<Actor, Workspace>();

/**
 * The workspace an actor acts in, read once per actor: the services of one
 * call (or one API request) share their actor, so they share this read.
 */
export function workspaceOf(deps: ServiceDeps, actor: Actor): Workspace {
  let workspace = workspaces.get(actor);
  if (!workspace) {
    workspace = deps.db
      .prepare<[string], Workspace>('SELECT id, name, zone, currency FROM workspaces WHERE id = ?')
      .get(actor.workspaceId);
    // it exists for every authenticated actor
    if (!workspace) throw new Error('The workspace of an authenticated actor is missing.');
    workspaces.set(actor, workspace);
  }
  return workspace;
}

/** Epoch milliseconds as a zoned date-time. */
export const zoned = (ms: number, zone: string): Temporal.ZonedDateTime =>
  Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);

/** A local time for people: `Tuesday, 5 May 2026, 09:00 (Europe/Berlin)`. */
export function spokenTime(time: Temporal.ZonedDateTime): string {
  const date = time.toPlainDate().toLocaleString('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  });
  return `${date}, ${time.toPlainTime().toString({ smallestUnit: 'minute' })} (${time.timeZoneId})`;
}
