import { ConfigurationError, type VisibilityRule } from '@gatehousejs/core';

/**
 * Hides tools outside the connection's toolset (I7), e.g. a compact toolset
 * for small models chosen when the token is created. A connection without a
 * toolset sees every tool; an unknown toolset name hides everything (fails closed).
 */
export function toolsetVisibility(
  toolsets: Readonly<Record<string, readonly string[]>>,
): VisibilityRule<string> {
  const sets = new Map(Object.entries(toolsets).map(([name, tools]) => [name, new Set(tools)]));
  if (sets.size === 0) throw new ConfigurationError('toolsetVisibility: define at least one toolset.');
  return function toolsetRule(tool, connection) {
    if (connection.toolset === undefined) return undefined;
    const set = sets.get(connection.toolset);
    if (set?.has(tool.name)) return undefined;
    return {
      reason: set
        ? `it is not in the "${connection.toolset}" toolset of this connection.`
        : 'this connection names an unknown toolset.',
      fix: 'Use a tool from tools/list, or a token created with a toolset that includes this tool.',
    };
  };
}

/**
 * Hides tools the tenant's plan does not include (I7). `planOf` is the host's
 * lookup (it may be async); `plans` maps a tool to the plans that include it.
 * Tools not listed are in every plan.
 */
export function planVisibility<TRight extends string>(options: {
  readonly planOf: (tenantId: string) => string | Promise<string>;
  readonly plans: Readonly<Record<string, readonly string[]>>;
}): VisibilityRule<TRight> {
  if (typeof options.planOf !== 'function')
    throw new ConfigurationError('planVisibility: planOf is required.');
  return async function planRule(tool, connection) {
    const allowed = options.plans[tool.name];
    if (!allowed) return undefined;
    const plan = await options.planOf(connection.tenantId);
    if (allowed.includes(plan)) return undefined;
    return {
      reason: `the "${plan}" plan does not include it.`,
      fix: `Ask a workspace admin to upgrade to ${allowed.map((p) => `"${p}"`).join(' or ')}.`,
    };
  };
}
