import { auditRow } from '@gatehousejs/core';
import type { BookingApp } from '../app.js';
import { type Person, type Right, rightsOf } from '../domain/model.js';
import { API_TOKEN_PREFIX, SESSION_COOKIE } from '../services/apiAccess.js';
import type { Services } from '../services/index.js';
import { ApiError, cookieValue, type Reply, readJson } from './http.js';

/** Who calls the API, and with which credential. */
export interface ApiCaller {
  readonly person: Person;
  readonly via: 'token' | 'session';
}

/** What a route handler receives. */
export interface RouteContext {
  readonly app: BookingApp;
  readonly request: Request;
  readonly url: URL;
  /** The path's parameters by name (`:id` is `params.id`), percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly caller: ApiCaller | undefined;
  body(): Promise<unknown>;
}

/** One API route. */
export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A Hono path pattern, e.g. `/api/bookings/:id`; a parameter matches one segment. */
  readonly path: string;
  /** `none`: public; `any`: API token or session; `session`: the UI's session cookie only. */
  readonly auth: 'none' | 'any' | 'session';
  readonly right?: Right;
  handle(context: RouteContext): Promise<Reply> | Reply;
}

/**
 * The caller of an API request: an API token in `Authorization`, else the
 * session cookie. Anything else in `Authorization` is refused (MCP tokens
 * never get here: they are refused before routing, I5).
 */
export async function callerOf(app: BookingApp, request: Request): Promise<ApiCaller | undefined> {
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? '';
    const person = token.startsWith(API_TOKEN_PREFIX) ? await app.apiAccess.byToken(token) : undefined;
    return person && { person, via: 'token' };
  }
  const session = cookieValue(request, SESSION_COOKIE);
  const person = session ? await app.apiAccess.bySession(session) : undefined;
  return person && { person, via: 'session' };
}

/** The caller, or a 401. */
export function callerIn(context: RouteContext): ApiCaller {
  if (!context.caller) throw new ApiError(401, 'unauthorized', 'Sign in or send an API token.');
  return context.caller;
}

/** A 403 unless the caller's role grants `right` right now. */
export function requireRight(caller: ApiCaller, right: Right): void {
  if (!rightsOf(caller.person.role, caller.person.active).includes(right)) {
    throw new ApiError(403, 'missing_right', `Your role does not grant ${right}.`, { missing_right: right });
  }
}

/** The services, acting as the caller through the API. */
export function servicesOf(context: RouteContext): Services {
  const { person } = callerIn(context);
  return context.app.servicesFor({ workspaceId: person.workspaceId, personId: person.id, channel: 'api' });
}

/**
 * Runs an API write in one unit of work with its audit row (channel `api`),
 * the same unit of work MCP writes use, so it never lands inside an open
 * MCP transaction and waits for the writer without blocking.
 */
export function apiWrite<T>(
  context: RouteContext,
  action: string,
  ids: (result: NoInfer<T>) => string[],
  work: (services: Services) => Promise<T>,
): Promise<T> {
  const { app } = context;
  const { person } = callerIn(context);
  const actor = { workspaceId: person.workspaceId, personId: person.id, channel: 'api' } as const;
  return app.writeAs(actor, async (services, handle) => {
    const result = await work(services);
    const entry = {
      channel: 'api',
      action,
      outcome: 'ok' as const,
      tenantId: person.workspaceId,
      actorId: person.id,
      objectIds: ids(result),
    };
    await app.database.stores.audit.append(auditRow(entry, app.deps.clock().getTime()), handle);
    return result;
  });
}

/** The JSON body of the request, read once. */
export function bodyReader(request: Request): () => Promise<unknown> {
  let body: Promise<unknown> | undefined;
  return () => {
    body ??= readJson(request);
    return body;
  };
}
