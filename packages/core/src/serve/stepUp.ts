import type { AdmissionRefusal, Connection } from '../context.js';
import { isPlainObject, type Json } from '../json.js';
import type { GatehouseServer } from '../server.js';

/**
 * OAuth step-up (I7): the 403 `insufficient_scope` refusal for a JSON-RPC
 * `tools/call` of a tool that is listed to `connection` but that its access
 * token's scopes do not grant, naming the scopes that would; nothing for any
 * other message, a connection without OAuth scopes, or a tool the call may
 * reach (the pipeline decides those). HTTP transports ask after parsing the
 * body and before the SDK sees it, so no tool, service or store runs.
 */
export async function stepUpRefusal<TRight extends string>(
  server: GatehouseServer<TRight>,
  connection: Connection<TRight>,
  message: Json,
): Promise<AdmissionRefusal | undefined> {
  if (!connection.scope || !server.stepUpScopes) return undefined;
  if (!isPlainObject(message) || message.method !== 'tools/call') return undefined;
  const params = message.params;
  const name = isPlainObject(params) ? params.name : undefined;
  if (typeof name !== 'string') return undefined;
  const scopes = await server.stepUpScopes(connection, name);
  if (!scopes || scopes.length === 0) return undefined;
  return {
    status: 403,
    reason: `The access token's scopes do not grant ${name}; authorize again with the scope ${scopes.join(' ')} added, then retry.`,
    insufficientScope: [...scopes],
  };
}
