import type { Connection } from '../context.js';
import type { Guard } from '../contract/guard.js';
import type { ToolDefinition } from '../contract/tool.js';
import type { ToolErrorInit } from '../errors.js';

/** Why a tool is hidden from a connection; shown when it is called anyway (I7). */
export interface HiddenReason {
  readonly reason: string;
  /** What the caller can do about it. */
  readonly fix: string;
}

/** What a visibility rule sees of a tool. */
export type VisibleTool = Pick<ToolDefinition, 'name' | 'title' | 'effect' | 'requires'>;

/** Hides a tool from a connection (by toolset, plan, …); returns the reason, or nothing. */
export type VisibilityRule<TRight extends string> = (
  tool: VisibleTool,
  connection: Connection<TRight>,
) => HiddenReason | undefined | Promise<HiddenReason | undefined>;

type ConnectionCheck = NonNullable<Guard['connection']>;

/** Whether a connection is listed by `right`: it holds it, or (OAuth) the person could with more scopes. */
const listable = (connection: Connection, right: string): boolean =>
  connection.rights.has(right) || (connection.scope?.listed.has(right) ?? false);

const missingRights = (tool: VisibleTool, connection: Connection): ToolErrorInit | undefined => {
  const missing = tool.requires.filter((right) => !connection.rights.has(right));
  if (missing.length === 0) return undefined;
  const plural = missing.length > 1 ? 's' : '';
  const scopes =
    connection.scope && missing.every((right) => listable(connection, right))
      ? connection.scope.scopesFor(tool.requires)
      : [];
  if (scopes.length > 0) {
    // OAuth: the person holds the rights, the access token's scopes do not grant them (I7)
    return {
      code: 'missing_right',
      message: `${tool.name} requires the right${plural} ${missing.join(', ')}, which this access token's scopes do not grant.`,
      fix: `Authorize again with the scope${scopes.length > 1 ? 's' : ''} ${scopes.join(' ')} added, then retry.`,
      details: { tool: tool.name, missing_rights: missing, scopes: [...scopes] },
    };
  }
  return {
    code: 'missing_right',
    message: `${tool.name} requires the right${plural} ${missing.join(', ')}, which this connection does not hold.`,
    fix: 'Ask a workspace admin to grant the right to the token’s creator and issue a token that includes it.',
    details: { tool: tool.name, missing_rights: missing },
  };
};

const storeDown: ToolErrorInit = {
  code: 'store_unavailable',
  message: 'A switch could not be read; nothing ran.',
  fix: 'Retry shortly.',
};

/**
 * The one visibility decision (I6, I7): `tools/list` shows exactly the tools
 * `tools/call` would not refuse as hidden. First the connection-wide checks
 * (a tenant switched off hides everything), then the tool's required rights,
 * then the host's rules. A check that throws hides (fails closed). The one
 * exception is OAuth step-up: a tool within the person's rights but outside
 * the token's scopes is listed, and a call to it is refused `missing_right`
 * (over HTTP the transport answers 403 `insufficient_scope` first).
 */
export function createVisibility<TRight extends string>(
  connectionChecks: readonly ConnectionCheck[],
  rules: readonly VisibilityRule<TRight>[],
) {
  const connectionRefusal = async (connection: Connection): Promise<ToolErrorInit | undefined> => {
    for (const check of connectionChecks) {
      let refusal: ToolErrorInit | undefined;
      try {
        refusal = await check(connection);
      } catch {
        return storeDown;
      }
      if (refusal) return refusal;
    }
    return undefined;
  };

  const ruleRefusal = async (
    tool: VisibleTool,
    connection: Connection,
  ): Promise<ToolErrorInit | undefined> => {
    for (const rule of rules) {
      const hidden = await rule(tool, connection as Connection<TRight>);
      if (hidden) {
        return {
          code: 'tool_hidden',
          message: `${tool.name} is hidden: ${hidden.reason}`,
          fix: hidden.fix,
          details: { tool: tool.name },
        };
      }
    }
    return undefined;
  };

  /** Listed: the person's rights cover it (under OAuth, with any declared scope) and no rule hides it. */
  const listed = async (tool: VisibleTool, connection: Connection): Promise<boolean> => {
    if (!tool.requires.every((right) => listable(connection, right))) return false;
    return (await ruleRefusal(tool, connection)) === undefined;
  };

  return Object.freeze({
    /** Why `tool` is refused to `connection` when called, or nothing: calls need `rights`, not only `scope.listed`. */
    async refusal(tool: VisibleTool, connection: Connection): Promise<ToolErrorInit | undefined> {
      return (
        (await connectionRefusal(connection)) ??
        missingRights(tool, connection) ??
        (await ruleRefusal(tool, connection))
      );
    },
    /**
     * The tools `connection` sees, from the same decision. Under OAuth a tool
     * within the person's rights but outside the token's scopes is listed
     * (I7's step-up exception); a call to it is still refused.
     */
    async visible<T extends { readonly tool: VisibleTool }>(
      plans: readonly T[],
      connection: Connection,
    ): Promise<readonly T[]> {
      if (await connectionRefusal(connection)) return [];
      const shown = await Promise.all(plans.map((p) => listed(p.tool, connection)));
      return plans.filter((_p, i) => shown[i]);
    },
    /**
     * OAuth step-up (I7): the scopes to ask for when `tool` is listed to
     * `connection` but its token's scopes do not grant the tool's rights;
     * nothing when the call is allowed, hidden, or no declared scope covers it.
     */
    async stepUp(tool: VisibleTool, connection: Connection): Promise<readonly string[] | undefined> {
      const { scope } = connection;
      if (!scope || tool.requires.every((right) => connection.rights.has(right))) return undefined;
      if (await connectionRefusal(connection)) return undefined;
      if (!(await listed(tool, connection))) return undefined;
      const scopes = scope.scopesFor(tool.requires);
      return scopes.length > 0 ? scopes : undefined;
    },
  });
}

export type Visibility = ReturnType<typeof createVisibility>;
