import { z } from 'zod';
import { SESSION_COOKIE } from '../services/apiAccess.js';
import { callerIn, type Route } from './context.js';
import { ApiError, cookieValue, parseWith } from './http.js';

const loginInput = z.object({ email: z.string().min(3).max(200), password: z.string().min(1).max(200) });
const tokenInput = z.object({ label: z.string().min(1).max(100) });

const cookie = (value: string, maxAgeSeconds: number) =>
  `${SESSION_COOKIE}=${encodeURIComponent(value)}; HttpOnly; SameSite=Strict; Path=/api; Max-Age=${maxAgeSeconds}`;

/** Signing in and out of the UI, and creating API tokens from a signed-in session. */
export const SESSION_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/api/session',
    auth: 'none',
    handle: async (c) => {
      const input = parseWith(loginInput, await c.body());
      const session = await c.app.apiAccess.login(input.email, input.password);
      if (!session) throw new ApiError(401, 'unauthorized', 'The e-mail or the password is wrong.');
      const maxAge = Math.floor((session.expiresAt - c.app.deps.clock().getTime()) / 1000);
      return { status: 204, headers: { 'set-cookie': cookie(session.token, maxAge) } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/session',
    auth: 'session',
    handle: async (c) => {
      const token = cookieValue(c.request, SESSION_COOKIE);
      if (token) await c.app.apiAccess.logout(token);
      return { status: 204, headers: { 'set-cookie': cookie('', 0) } };
    },
  },
  {
    method: 'POST',
    path: '/api/api-tokens',
    auth: 'session',
    handle: async (c) => {
      const input = parseWith(tokenInput, await c.body());
      const { id, token } = await c.app.apiAccess.createToken(callerIn(c).person, input.label);
      return { status: 201, body: { id, token, note: 'Shown once; only its hash is stored.' } };
    },
  },
];
