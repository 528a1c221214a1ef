import { refuseMcpTokens } from '@gatehousejs/access';
import type { BookingApp } from '../app.js';
import { ADMIN_ROUTES } from './admin.js';
import { bodyReader, callerOf, type Route, requireRight } from './context.js';
import { ApiError, type Reply, replyForError, toResponse } from './http.js';
import { PRODUCT_ROUTES } from './routes.js';
import { SESSION_ROUTES } from './session.js';

const ROUTES: readonly Route[] = [...SESSION_ROUTES, ...PRODUCT_ROUTES, ...ADMIN_ROUTES];
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function match(method: string, path: string): { route: Route; params: string[] } {
  let known = false;
  for (const route of ROUTES) {
    const found = route.path.exec(path);
    if (!found) continue;
    known = true;
    if (route.method === method) return { route, params: found.slice(1).map(decodeURIComponent) };
  }
  throw known
    ? new ApiError(405, 'method_not_allowed', `${method} is not allowed here.`)
    : new ApiError(404, 'not_found', 'No such route.');
}

/** A browser request from another site must not ride on the session cookie. */
function checkOrigin(request: Request): void {
  const origin = request.headers.get('origin');
  if (origin === null) return;
  let host = '';
  try {
    host = new URL(origin).host;
  } catch {
    // an unparsable Origin is foreign
  }
  if (host !== request.headers.get('host'))
    throw new ApiError(403, 'forbidden', 'Cross-site requests are refused.');
}

async function route(app: BookingApp, request: Request, url: URL): Promise<Reply & { name: string }> {
  const method = request.method;
  const { route, params } = match(method, url.pathname);
  const name = `${route.method} ${route.path.source}`;
  const caller = route.auth === 'none' ? undefined : await callerOf(app, request);
  if (route.auth !== 'none' && !caller)
    throw new ApiError(401, 'unauthorized', 'Sign in or send an API token.');
  if (route.auth === 'session' && caller?.via !== 'session') {
    throw new ApiError(403, 'session_required', 'This route needs a signed-in session, not an API token.');
  }
  if (caller?.via === 'session' && UNSAFE.has(method)) checkOrigin(request);
  if (caller && route.right) requireRight(caller, route.right);
  const reply = await route.handle({ app, request, url, params, caller, body: bodyReader(request) });
  return { ...reply, name };
}

/**
 * The product's REST API as a web-standard handler for `/api/…` (mount it
 * with core's `listen({ fetch })` or any fetch-style router). MCP tokens are
 * refused with 401 before routing, in `Authorization` or any cookie (I5);
 * one log line per request, never bodies or arguments (I17).
 */
export function createApiHandler(app: BookingApp): (request: Request) => Promise<Response> {
  const refusal = refuseMcpTokens(app.credentials.isMcpToken);
  return async (request) => {
    const url = new URL(request.url);
    const refused = refusal.check(request);
    if (refused) {
      app.logger.info({ event: 'api', method: request.method, status: 401, refused: 'mcp_token' }, 'api');
      return refused;
    }
    let reply: Reply;
    try {
      reply = await route(app, request, url);
    } catch (error) {
      reply = replyForError(error);
      if (reply.status === 500)
        app.logger.error({ event: 'api', error_type: (error as Error)?.name }, 'api failed');
    }
    app.logger.info(
      { event: 'api', method: request.method, path: url.pathname, status: reply.status },
      'api',
    );
    return toResponse(reply);
  };
}
