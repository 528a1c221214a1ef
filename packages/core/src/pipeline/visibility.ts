import type { Connection } from '../context.js';
import type { GuardedTool } from '../contract/call.js';
import type { VisibilityGuard, VisibilityPurpose } from '../contract/guard.js';
import type { ToolErrorInit } from '../errors.js';
import { isPlainObject } from '../json.js';
import { refusalIn } from './guardSet.js';

const storeDown: ToolErrorInit = {
  code: 'store_unavailable',
  message: 'A switch could not be read; nothing ran.',
  fix: 'Retry shortly.',
};

/** The scopes a `missing_right` refusal names (OAuth step-up, I7), if any. */
function scopesIn(refusal: ToolErrorInit | undefined): readonly string[] | undefined {
  if (refusal?.code !== 'missing_right' || !isPlainObject(refusal.details)) return undefined;
  const scopes = refusal.details.scopes;
  return Array.isArray(scopes) && scopes.length > 0 && scopes.every((s) => typeof s === 'string')
    ? (scopes as string[])
    : undefined;
}

/**
 * The one visibility decision (I3, I4, I6, I7), from the server's
 * visibility guards: `tools/list` shows exactly the tools `tools/call`
 * would not refuse as hidden. First every guard's `connection` check (a
 * tenant switched off hides everything; one that throws is an outage),
 * then every guard's `tool` check. The one exception is OAuth step-up: a
 * guard may list a tool (`purpose: 'list'`) that it refuses to call
 * (`missing_right` naming `details.scopes`); over HTTP the transport then
 * answers 403 `insufficient_scope` first.
 */
export function createVisibility(guards: readonly VisibilityGuard[]) {
  const onConnection = guards.filter((g) => g.connection !== undefined);
  const onTool = guards.filter((g) => g.tool !== undefined);

  const connectionRefusal = async (connection: Connection): Promise<ToolErrorInit | undefined> => {
    for (const guard of onConnection) {
      let decision: unknown;
      try {
        decision = guard.connection!(connection);
        if (decision instanceof Promise) decision = await decision;
      } catch {
        return storeDown;
      }
      const refused = refusalIn(guard, decision);
      if (refused) return refused;
    }
    return undefined;
  };

  const toolRefusal = async (
    tool: GuardedTool,
    connection: Connection,
    purpose: VisibilityPurpose,
  ): Promise<ToolErrorInit | undefined> => {
    for (const guard of onTool) {
      const decision = guard.tool!(tool, connection, purpose);
      const refused = refusalIn(guard, decision instanceof Promise ? await decision : decision);
      if (refused) return refused;
    }
    return undefined;
  };

  return Object.freeze({
    /** Why `tool` is refused to `connection` when called, or nothing. */
    async refusal(tool: GuardedTool, connection: Connection): Promise<ToolErrorInit | undefined> {
      return (await connectionRefusal(connection)) ?? (await toolRefusal(tool, connection, 'call'));
    },
    /** The tools `connection` sees, from the same decision (listed for the step-up exception, I7). */
    async visible<T extends { readonly guarded: GuardedTool }>(
      compiled: readonly T[],
      connection: Connection,
    ): Promise<readonly T[]> {
      if (await connectionRefusal(connection)) return [];
      const refused = await Promise.all(compiled.map((c) => toolRefusal(c.guarded, connection, 'list')));
      return compiled.filter((_c, i) => refused[i] === undefined);
    },
    /**
     * OAuth step-up (I7): the scopes to ask for when `tool` is listed to
     * `connection` but a guard refuses the call for want of them; nothing
     * for a connection without OAuth scopes, or a call allowed or hidden.
     */
    async stepUp(tool: GuardedTool, connection: Connection): Promise<readonly string[] | undefined> {
      if (!connection.scope) return undefined;
      if (await connectionRefusal(connection)) return undefined;
      const scopes = scopesIn(await toolRefusal(tool, connection, 'call'));
      if (!scopes) return undefined;
      return (await toolRefusal(tool, connection, 'list')) === undefined ? scopes : undefined;
    },
  });
}

export type Visibility = ReturnType<typeof createVisibility>;
