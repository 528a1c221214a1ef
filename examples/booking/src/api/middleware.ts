import { refuseMcpTokens } from '@gatehousejs/access';
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from 'hono';
import type { BookingApp } from '../app.js';
import type { Right } from '../domain/model.js';
import { type ApiCaller, bodyReader, callerOf, type Route, requireRight } from './context.js';
import { ApiError, replyForError, toResponse } from './http.js';

/** The API's Hono environment: the caller, once a route's authentication step has run. */
export interface ApiEnv {
  Variables: { caller: ApiCaller | undefined };
}

type Step = MiddlewareHandler<ApiEnv>;

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The request's path as sent (not percent-decoded), for routing and for the log. */
export const rawPath = (request: Request): string => new URL(request.url).pathname;

/** MCP tokens, in `Authorization` or any cookie, get 401 before routing (I5); logged without the path. */
export function refuseMcp(app: BookingApp): Step {
  const refusal = refuseMcpTokens(app.credentials.isMcpToken);
  return async (c, next) => {
    const refused = refusal.check(c.req.raw);
    if (!refused) return next();
    app.logger.info({ event: 'api', method: c.req.method, status: 401, refused: 'mcp_token' }, 'api');
    return refused;
  };
}

/** One log line per request: method, path and status, never bodies or arguments (I17). */
export function logRequests(app: BookingApp): Step {
  return async (c, next) => {
    await next();
    const path = rawPath(c.req.raw);
    app.logger.info({ event: 'api', method: c.req.method, path, status: c.res.status }, 'api');
  };
}

/** Any failure as its JSON reply; an unexpected one is a 500 naming no cause, logged by type only. */
export function answerErrors(app: BookingApp): ErrorHandler<ApiEnv> {
  return (error) => {
    const reply = replyForError(error);
    if (reply.status === 500) app.logger.error({ event: 'api', error_type: error.name }, 'api failed');
    return toResponse(reply);
  };
}

/** A path no route knows (answered, not thrown: Hono runs it after the middleware, outside its error handler). */
export const notFound: NotFoundHandler<ApiEnv> = () =>
  toResponse(replyForError(new ApiError(404, 'not_found', 'No such route.')));

/** A known path asked with a method none of its routes has. */
export const methodNotAllowed = (c: Context<ApiEnv>): never => {
  throw new ApiError(405, 'method_not_allowed', `${c.req.method} is not allowed here.`);
};

/** Hono answers HEAD with the GET route; the API allows only the route's own method. */
export function exactMethod(method: Route['method']): Step {
  return async (c, next) => (c.req.method === method ? next() : methodNotAllowed(c));
}

/** Finds the caller and applies the route's mode: `none`, `any` credential, or `session` only. */
export function authenticate(app: BookingApp, auth: Route['auth']): Step {
  return async (c, next) => {
    const caller = auth === 'none' ? undefined : await callerOf(app, c.req.raw);
    if (auth !== 'none' && !caller) throw new ApiError(401, 'unauthorized', 'Sign in or send an API token.');
    if (auth === 'session' && caller?.via !== 'session') {
      throw new ApiError(403, 'session_required', 'This route needs a signed-in session, not an API token.');
    }
    c.set('caller', caller);
    return next();
  };
}

/** A browser request from another site must not ride on the session cookie. */
export const sameSiteWrites: Step = async (c, next) => {
  const origin = c.req.header('origin');
  if (c.get('caller')?.via !== 'session' || !UNSAFE.has(c.req.method) || origin === undefined) return next();
  let host = '';
  try {
    host = new URL(origin).host;
  } catch {
    // an unparsable Origin is foreign
  }
  if (host !== c.req.header('host')) throw new ApiError(403, 'forbidden', 'Cross-site requests are refused.');
  return next();
};

/** A 403 unless the caller's role grants the route's right. */
export function permit(right: Right | undefined): Step {
  return async (c, next) => {
    const caller = c.get('caller');
    if (caller && right) requireRight(caller, right);
    return next();
  };
}

/** Runs the route's handler and answers with its reply. */
export function handle(app: BookingApp, route: Route) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const request = c.req.raw;
    const context = {
      app,
      request,
      url: new URL(request.url),
      params: c.req.param(),
      caller: c.get('caller'),
      body: bodyReader(request),
    };
    return toResponse(await route.handle(context));
  };
}
