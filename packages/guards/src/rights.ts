import {
  ALLOW,
  type Connection,
  type Decision,
  defineGuard,
  deny,
  type GuardedTool,
  type VisibilityGuard,
} from '@gatehousejs/core';

/** Whether `connection` is listed by `right`: it holds it, or (OAuth) the person could with more scopes. */
const listable = (connection: Connection, right: string): boolean =>
  connection.rights.has(right) || (connection.scope?.listed.has(right) ?? false);

/** The refusal of a call without every right `tool` requires, naming the scopes that would grant them under OAuth (I7). */
function missingRights(tool: GuardedTool, connection: Connection): Decision {
  const missing = tool.requires.filter((right) => !connection.rights.has(right));
  if (missing.length === 0) return ALLOW;
  const plural = missing.length > 1 ? 's' : '';
  const scopes =
    connection.scope && missing.every((right) => listable(connection, right))
      ? connection.scope.scopesFor(tool.requires)
      : [];
  if (scopes.length > 0) {
    // OAuth: the person holds the rights, the access token's scopes do not grant them (I7)
    return deny({
      code: 'missing_right',
      message: `${tool.name} requires the right${plural} ${missing.join(', ')}, which this access token's scopes do not grant.`,
      fix: `Authorize again with the scope${scopes.length > 1 ? 's' : ''} ${scopes.join(' ')} added, then retry.`,
      details: { tool: tool.name, missing_rights: missing, scopes: [...scopes] },
    });
  }
  return deny({
    code: 'missing_right',
    message: `${tool.name} requires the right${plural} ${missing.join(', ')}, which this connection does not hold.`,
    fix: 'Ask a workspace admin to grant the right to the token’s creator and issue a token that includes it.',
    details: { tool: tool.name, missing_rights: missing },
  });
}

/**
 * Live rights (I4, I7): a tool is listed and callable only with every right
 * it `requires` among the connection's effective rights, which the
 * authenticator computes afresh on every request (the token's rights ∩ its
 * creator's current ones). A call without them is `missing_right`, naming
 * them. The one exception is OAuth step-up: a tool within the person's
 * rights but outside the token's scopes is listed, and its call is refused
 * naming the scopes to ask for (over HTTP: 403 `insufficient_scope`).
 *
 * @example
 * createServer({ guards: [rightsGuard(), …] });
 */
export function rightsGuard(): VisibilityGuard {
  return defineGuard({
    kind: 'visibility',
    name: 'rights',
    duty: 'rights',
    tool: function liveRights(tool, connection, purpose): Decision {
      if (purpose === 'call') return missingRights(tool, connection);
      if (tool.requires.every((right) => listable(connection, right))) return ALLOW;
      return deny({
        code: 'missing_right',
        message: `${tool.name} requires rights this connection does not hold.`,
        fix: 'Ask a workspace admin for the rights.',
      });
    },
  });
}
