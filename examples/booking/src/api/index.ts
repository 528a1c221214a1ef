import { Hono } from 'hono';
import type { BookingApp } from '../app.js';
import { ADMIN_ROUTES } from './admin.js';
import type { Route } from './context.js';
import {
  type ApiEnv,
  answerErrors,
  authenticate,
  exactMethod,
  handle,
  logRequests,
  methodNotAllowed,
  notFound,
  permit,
  rawPath,
  refuseMcp,
  sameSiteWrites,
} from './middleware.js';
import { PRODUCT_ROUTES } from './routes.js';
import { SESSION_ROUTES } from './session.js';

const ROUTES: readonly Route[] = [...SESSION_ROUTES, ...PRODUCT_ROUTES, ...ADMIN_ROUTES];

/**
 * The API as a Hono app. Each route runs, in order: its method (405),
 * authentication (401/403), the Origin check for session writes (403), its
 * right (403), then its handler. A known path asked with another method falls
 * through to a 405; an unknown path is a 404. Paths are matched as sent, so a
 * parameter is one segment, percent-decoded once.
 */
function apiApp(app: BookingApp): Hono<ApiEnv> {
  const api = new Hono<ApiEnv>({ getPath: rawPath });
  api.use(refuseMcp(app), logRequests(app));
  for (const route of ROUTES) {
    api.on(
      route.method,
      route.path,
      exactMethod(route.method),
      authenticate(app, route.auth),
      sameSiteWrites,
      permit(route.right),
      handle(app, route),
    );
  }
  for (const path of new Set(ROUTES.map((route) => route.path))) api.all(path, methodNotAllowed);
  api.notFound(notFound);
  api.onError(answerErrors(app));
  return api;
}

/**
 * The product's REST API as a web-standard handler for `/api/…` (mount it
 * with core's `listen({ fetch })` or any fetch-style router), routed by Hono.
 * MCP tokens are refused with 401 before routing, in `Authorization` or any
 * cookie (I5); one log line per request, never bodies or arguments (I17).
 */
export function createApiHandler(app: BookingApp): (request: Request) => Promise<Response> {
  const api = apiApp(app);
  return async (request) => api.fetch(request);
}
