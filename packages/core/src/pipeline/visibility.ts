import type { Connection } from '../context.js';
import type { ToolErrorInit } from '../errors.js';
import type { ToolDefinition } from '../tool.js';
import type { Guard } from './guard.js';

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

const missingRights = (tool: VisibleTool, connection: Connection): ToolErrorInit | undefined => {
  const missing = tool.requires.filter((right) => !connection.rights.has(right));
  if (missing.length === 0) return undefined;
  return {
    code: 'missing_right',
    message: `${tool.name} requires the right${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which this connection does not hold.`,
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
 * then the host's rules. A check that throws hides (fails closed).
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

  const toolRefusal = async (
    tool: VisibleTool,
    connection: Connection,
  ): Promise<ToolErrorInit | undefined> => {
    const missing = missingRights(tool, connection);
    if (missing) return missing;
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

  return Object.freeze({
    /** Why `tool` is refused to `connection` when called, or nothing. */
    async refusal(tool: VisibleTool, connection: Connection): Promise<ToolErrorInit | undefined> {
      return (await connectionRefusal(connection)) ?? (await toolRefusal(tool, connection));
    },
    /** The tools `connection` sees, from the same decision. */
    async visible<T extends { readonly tool: VisibleTool }>(
      plans: readonly T[],
      connection: Connection,
    ): Promise<readonly T[]> {
      if (await connectionRefusal(connection)) return [];
      const refused = await Promise.all(plans.map((p) => toolRefusal(p.tool, connection)));
      return plans.filter((_p, i) => !refused[i]);
    },
  });
}

export type Visibility = ReturnType<typeof createVisibility>;
