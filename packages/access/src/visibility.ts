import {
  ALLOW,
  ConfigurationError,
  type Connection,
  type Decision,
  defineGuard,
  deny,
  type GuardedTool,
  type VisibilityGuard,
} from '@gatehousejs/core';

/** Why a tool is hidden: the refusal a call of it gets (I7). */
const hidden = (tool: GuardedTool, reason: string, fix: string): Decision =>
  deny({
    code: 'tool_hidden',
    message: `${tool.name} is hidden: ${reason}`,
    fix,
    details: { tool: tool.name },
  });

/**
 * Hides tools outside the connection's toolset (I7), a visibility guard:
 * e.g. a compact toolset for small models chosen when the token is created.
 * A connection without a toolset sees every tool; an unknown toolset name
 * hides everything (fails closed). A hidden tool is absent from
 * `tools/list`, and a call to it answers `tool_hidden` with the reason.
 *
 * @example
 * createServer({ guards: [...standardGuards(stores, { switches }), toolsetVisibility({ compact: ['find_bookings'] })] });
 */
export function toolsetVisibility(toolsets: Readonly<Record<string, readonly string[]>>): VisibilityGuard {
  const sets = new Map(Object.entries(toolsets ?? {}).map(([name, tools]) => [name, new Set(tools)]));
  if (sets.size === 0) throw new ConfigurationError('toolsetVisibility: define at least one toolset.');
  return defineGuard({
    kind: 'visibility',
    name: 'toolset',
    tool: function toolset(tool: GuardedTool, connection: Connection): Decision {
      if (connection.toolset === undefined) return ALLOW;
      const set = sets.get(connection.toolset);
      if (set?.has(tool.name)) return ALLOW;
      return hidden(
        tool,
        set
          ? `it is not in the "${connection.toolset}" toolset of this connection.`
          : 'this connection names an unknown toolset.',
        'Use a tool from tools/list, or a token created with a toolset that includes this tool.',
      );
    },
  });
}

/**
 * Hides tools the tenant's plan does not include (I7), a visibility guard.
 * `planOf` is the host's lookup (it may be async); `plans` maps a tool to
 * the plans that include it. Tools not listed are in every plan.
 */
export function planVisibility(options: {
  readonly planOf: (tenantId: string) => string | Promise<string>;
  readonly plans: Readonly<Record<string, readonly string[]>>;
}): VisibilityGuard {
  if (typeof options?.planOf !== 'function')
    throw new ConfigurationError('planVisibility: planOf is required.');
  return defineGuard({
    kind: 'visibility',
    name: 'plan',
    tool: async function plan(tool: GuardedTool, connection: Connection): Promise<Decision> {
      const allowed = options.plans[tool.name];
      if (!allowed) return ALLOW;
      const current = await options.planOf(connection.tenantId);
      if (allowed.includes(current)) return ALLOW;
      return hidden(
        tool,
        `the "${current}" plan does not include it.`,
        `Ask a workspace admin to upgrade to ${allowed.map((p) => `"${p}"`).join(' or ')}.`,
      );
    },
  });
}
