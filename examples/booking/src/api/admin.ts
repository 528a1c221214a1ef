import { z } from 'zod';
import { callerIn, type Route, type RouteContext } from './context.js';
import { ApiError, parseWith } from './http.js';

const globalInput = z.object({ on: z.boolean() });
const workspaceInput = z.object({ enabled: z.boolean() });

/** The signed-in owner, or a 403; every admin change is audited with channel `admin`. */
function owner(context: RouteContext) {
  const { person } = callerIn(context);
  if (person.role !== 'owner') throw new ApiError(403, 'forbidden', 'Only a workspace owner may do this.');
  return person;
}

/** The admin page's routes: kill switches (I6) and MCP token revocation (I5), UI session only. */
export const ADMIN_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/admin/switches',
    auth: 'session',
    handle: async (c) => {
      const person = owner(c);
      const global = await c.app.switches.isGlobalOn();
      const workspace = await c.app.switches.tenantAccess(person.workspaceId);
      return { status: 200, body: { global_kill_switch: global, workspace_agent_access: workspace } };
    },
  },
  {
    method: 'PUT',
    path: '/api/admin/switches/global',
    auth: 'session',
    handle: async (c) => {
      const person = owner(c);
      if (!person.operator)
        throw new ApiError(403, 'forbidden', 'Only the operator may flip the global kill switch.');
      const input = parseWith(globalInput, await c.body());
      await c.app.switches.setGlobal(input.on, { actorId: person.id, channel: 'admin' });
      return { status: 200, body: { global_kill_switch: input.on } };
    },
  },
  {
    method: 'PUT',
    path: '/api/admin/switches/workspace',
    auth: 'session',
    handle: async (c) => {
      const person = owner(c);
      const input = parseWith(workspaceInput, await c.body());
      await c.app.switches.setTenantAccess(person.workspaceId, input.enabled, {
        actorId: person.id,
        channel: 'admin',
      });
      return { status: 200, body: { workspace_agent_access: input.enabled } };
    },
  },
  {
    method: 'POST',
    path: '/api/admin/mcp-tokens/:id/revoke',
    auth: 'session',
    handle: async (c) => {
      const person = owner(c);
      const id = c.params.id ?? '';
      const record = await c.app.credentialStore.findById(id);
      if (!record?.tenantIds.includes(person.workspaceId)) {
        throw new ApiError(404, 'not_found', 'No MCP token with this id belongs to your workspace.');
      }
      const revoked = await c.app.credentials.revoke(id, { actorId: person.id, channel: 'admin' });
      return { status: 200, body: { id, revoked } };
    },
  },
];
