import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type AnyObjectSchema,
  getLiteralValue,
  getObjectShape,
} from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../errors.js';

/** What an SDK v1 request handler receives besides the request. */
export type V1Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A request handler as the host (or `McpServer`) registered it. */
export type HostHandler = (request: object, extra: V1Extra) => unknown;

/** The host's own `tools/list` and `tools/call` handlers, once it registers them. */
export interface HostToolHandlers {
  list?: HostHandler | undefined;
  call?: HostHandler | undefined;
}

const TOOL_SLOTS = { 'tools/list': 'list', 'tools/call': 'call' } as const;
const MOUNTED = Symbol.for('gatehouse.sdkV1.mounted');

const slotOf = (method: unknown): 'list' | 'call' | undefined =>
  typeof method === 'string' && Object.hasOwn(TOOL_SLOTS, method)
    ? TOOL_SLOTS[method as keyof typeof TOOL_SLOTS]
    : undefined;

function methodOf(schema: AnyObjectSchema): unknown {
  const method = getObjectShape(schema)?.method;
  return method === undefined ? undefined : getLiteralValue(method);
}

/**
 * Takes over the `tools/list` and `tools/call` slots of an SDK v1 `Server`.
 *
 * `install` receives the server's own `setRequestHandler`, for Gatehouse's
 * two handlers. From then on, a `tools/list` or `tools/call` handler set on
 * the server (by the host, or by `McpServer` when it registers its first
 * tool) is kept in the returned slots instead of replacing Gatehouse's;
 * `removeRequestHandler` and `assertCanSetRequestHandler` see those slots.
 * Refuses a server that already has a tool handler (it cannot be read back),
 * one that is connected, or one already mounted.
 */
export function captureToolHandlers(
  server: Server,
  install: (set: Server['setRequestHandler']) => void,
): HostToolHandlers {
  const marks = server as unknown as Record<symbol, unknown>;
  if (marks[MOUNTED]) throw new ConfigurationError('mountGatehouse: this server is mounted already.');
  if (server.transport) {
    throw new ConfigurationError('mountGatehouse: mount before connect(); capabilities are fixed then.');
  }
  for (const method of Object.keys(TOOL_SLOTS)) {
    try {
      server.assertCanSetRequestHandler(method);
    } catch {
      throw new ConfigurationError(
        `mountGatehouse: the server already has a ${method} handler, which the SDK cannot hand back. ` +
          'Mount right after creating the server, before registering tools (for McpServer: without capabilities.tools in its options).',
      );
    }
  }
  server.registerCapabilities({ tools: {} });
  const set = server.setRequestHandler.bind(server);
  const assertCanSet = server.assertCanSetRequestHandler.bind(server);
  const remove = server.removeRequestHandler.bind(server);
  install(set);

  const host: HostToolHandlers = {};
  const capture = (schema: AnyObjectSchema, handler: HostHandler): void => {
    const slot = slotOf(methodOf(schema));
    if (slot) host[slot] = handler;
    else set(schema, handler as Parameters<Server['setRequestHandler']>[1]);
  };
  server.setRequestHandler = capture as unknown as Server['setRequestHandler'];
  server.assertCanSetRequestHandler = (method: string) => {
    const slot = slotOf(method);
    if (!slot) return assertCanSet(method);
    if (host[slot])
      throw new Error(`A request handler for ${method} already exists, which would be overridden`);
  };
  server.removeRequestHandler = (method: string) => {
    const slot = slotOf(method);
    if (slot) host[slot] = undefined;
    else remove(method);
  };
  marks[MOUNTED] = true;
  return host;
}
