import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type ListToolsRequest,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Connection } from '../context.js';
import { ConfigurationError } from '../errors.js';
import type { Logger } from '../logging.js';
import type { GatehouseServer } from '../server.js';
import { type RequestFacts, startRequest } from '../telemetry.js';
import { admit } from './admission.js';
import { refusalLogOf } from './refusalLog.js';
import { type Report, refuseMovedOnerror, reporter } from './report.js';
import { screenIncoming } from './screen.js';
import { type Served, served } from './served.js';
import { outageOf, type UnavailableOptions } from './unavailable.js';
import { captureToolHandlers, type HostToolHandlers, type V1Extra } from './v1Capture.js';
import { admissionRpcError, CONNECTION_KEY, internalRpcError, V1RpcError } from './v1Errors.js';

/** Options of {@link mountGatehouse}. */
export interface MountOptions {
  /**
   * The one credential of a stdio server (e.g. from an environment variable).
   * Without it, each request's connection comes from `extra.authInfo`, as
   * set by the admission middleware ({@link createAdmissionMiddleware}).
   */
  readonly credential?: { readonly token: string | undefined; readonly tenant?: string | undefined };
  /**
   * Where admission refusals on the configured `credential` (stdio) are logged, at
   * info or warn, never token material; at most one line per reason a minute,
   * then one "N suppressed" line. Over HTTP the admission middleware logs them.
   * Default: the server's `logger`.
   */
  readonly logger?: Logger;
  /**
   * With `credential` (stdio): when a store admission reads (the kill switch's switch store, the
   * credential store behind the authenticator) fails or answers slower than
   * `timeoutMs` (default 5 s): every request answers the JSON-RPC error -32053 (`retry_after_seconds` in its data)
   * naming no cause, with `Retry-After` of `retryAfterSeconds` (default 5);
   * the error goes to the server's `onError`, one line per window to the refusal log.
   */
  readonly unavailable?: UnavailableOptions;
}

type Resolve<TRight extends string> = (extra: V1Extra) => Promise<Connection<TRight>>;

function resolver<TRight extends string>(
  gatehouse: GatehouseServer<TRight>,
  options: MountOptions,
  report: Report,
): Resolve<TRight> {
  const credential = options.credential;
  if (credential) {
    const token = credential.token;
    if (!token)
      throw new ConfigurationError('mountGatehouse: credential.token is empty (set it in the environment).');
    const log = refusalLogOf(options.logger, gatehouse);
    const outage = outageOf(options.unavailable, 'mountGatehouse', report);
    return async () => {
      const request = { transport: 'stdio', token, tenant: credential.tenant } as const;
      const admission = await admit(gatehouse, request, log, outage);
      if ('refusal' in admission) throw admissionRpcError(admission.refusal);
      return admission.connection;
    };
  }
  return async (extra) => {
    const connection = extra.authInfo?.extra?.[CONNECTION_KEY];
    if (typeof connection === 'object' && connection !== null) return connection as Connection<TRight>;
    report(
      new ConfigurationError(
        'mountGatehouse: a request arrived without a connection; is the admission middleware mounted?',
      ),
    );
    throw admissionRpcError({ status: 401, reason: 'No authenticated connection.' });
  };
}

/**
 * `tools/call` as the SDK's protocol layer parses it before any handler: by
 * method only. With the full `CallToolRequestSchema` there, malformed params
 * (e.g. `arguments: null`) throw a bare ZodError that goes out as an internal
 * error (-32603); this way the v1 `Server`'s own `tools/call` wrapper
 * validates the request and refuses it as invalid params (-32602).
 */
const LOOSE_CALL_REQUEST = CallToolRequestSchema.pick({ method: true }).passthrough();

const isMcpServer = (target: Server | McpServer): target is McpServer =>
  typeof (target as McpServer).registerTool === 'function' &&
  typeof (target as McpServer).server === 'object';

/**
 * Mounts Gatehouse's `tools/list` and `tools/call` on an SDK v1 server
 * (low-level `Server` or `McpServer`) next to the host's own tools,
 * resources and prompts. Call it right after creating the server, before
 * registering tools and before `connect()`; a server that already has tool
 * handlers is refused, since the SDK cannot hand them back.
 *
 * Every `tools/list` and `tools/call` resolves the connection afresh (from
 * `extra.authInfo`, or by running admission on the
 * configured credential), so rights, switches and tenant are never cached on
 * a transport session. The list is Gatehouse's visible tools, then the
 * host's (a host tool named like a visible Gatehouse tool is dropped). A call
 * goes to the host only for a name the host lists and Gatehouse does not
 * show this connection; everything else is Gatehouse's (unknown and hidden
 * names get Gatehouse's reasoned errors). Only `McpError`s and admission refusals
 * reach the client; anything else thrown becomes a bare internal error. A
 * `tools/call` with malformed params gets one short -32602 sentence on any
 * transport the server connects to; for stdio, {@link StdioLineTransport}
 * also bounds each line and refuses batches.
 *
 * @example
 * const server = new McpServer({ name: 'notes', version: '1.0.0' });
 * mountGatehouse(server, gatehouse, { credential: { token: process.env.NOTES_TOKEN } });
 */
export function mountGatehouse<TRight extends string>(
  target: Server | McpServer,
  gatehouse: GatehouseServer<TRight>,
  options: MountOptions = {},
): void {
  refuseMovedOnerror(options, 'mountGatehouse', (m) => new ConfigurationError(m));
  const transport = options.credential ? 'stdio' : 'http';
  const report = reporter(gatehouse, transport);
  const resolve = resolver(gatehouse, options, report);
  const traced = served(
    {
      // McpError has no brand; the SDK is a peer dependency, so host and adapter share one copy
      passes: (error) => V1RpcError.is(error) || error instanceof McpError,
      internal: internalRpcError,
      codeOf: (error) => (error as { code: number }).code,
    },
    report,
  );
  const server = isMcpServer(target) ? target.server : target;
  const mount: Mount<TRight> = { gatehouse, resolve, report, traced, host: {}, shadowed: new Set() };
  mount.host = captureToolHandlers(server, (set) => {
    set(ListToolsRequestSchema, (request, extra) => listTools(mount, request, extra));
    set(LOOSE_CALL_REQUEST, (request, extra) => callTool(mount, request as CallToolRequest, extra));
  });
  screenOnConnect(server, report);
}

/**
 * Screens every transport the server connects to: a `tools/call` with
 * malformed params gets the short -32602 sentence from the transport itself,
 * before the SDK's own `tools/call` wrapper would answer with its validator's dump.
 */
function screenOnConnect(server: Server, report: Report): void {
  const connect = server.connect.bind(server);
  server.connect = (transport) => {
    // Protocol.connect sets the transport's onmessage before its first await
    const connecting = connect(transport);
    screenIncoming(transport, report);
    return connecting;
  };
}

/** One mount: the Gatehouse server, the host's captured handlers, and the clashes reported so far. */
interface Mount<TRight extends string> {
  readonly gatehouse: GatehouseServer<TRight>;
  readonly resolve: Resolve<TRight>;
  readonly report: Report;
  /** The one wrapper of the SDK adapters' handlers (`served`). */
  readonly traced: Served;
  host: HostToolHandlers;
  readonly shadowed: Set<string>;
}

async function listTools<TRight extends string>(
  { gatehouse, host, resolve, report, traced, shadowed }: Mount<TRight>,
  request: ListToolsRequest,
  extra: V1Extra,
): Promise<ListToolsResult> {
  const span =
    gatehouse.telemetry &&
    startRequest(gatehouse.telemetry, v1Facts('tools/list', request.params?._meta, extra));
  return traced(span, async () => {
    const connection = await resolve(extra);
    const own = (await gatehouse.listTools(connection)) as unknown as ListToolsResult['tools'];
    span?.end({ outcome: 'ok', tenantId: connection.tenantId, connectionId: connection.connectionId });
    if (!host.list) return { tools: [...own] };
    const page = (await host.list(request, extra)) as ListToolsResult;
    if (request.params?.cursor !== undefined) return page;
    const names = new Set(own.map((t) => t.name));
    for (const clash of page.tools.filter((t) => names.has(t.name) && !shadowed.has(t.name))) {
      shadowed.add(clash.name);
      report(
        new ConfigurationError(
          `mountGatehouse: host tool ${clash.name} is shadowed by the Gatehouse tool of that name.`,
        ),
      );
    }
    return { ...page, tools: [...own, ...page.tools.filter((t) => !names.has(t.name))] };
  });
}

const MAX_HOST_PAGES = 100;

/** Every tool name the host lists for this request, following its pages. */
async function hostToolNames(host: HostToolHandlers, extra: V1Extra): Promise<Set<string>> {
  const names = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; host.list && page < MAX_HOST_PAGES; page++) {
    const request: ListToolsRequest = {
      method: 'tools/list',
      params: cursor === undefined ? {} : { cursor },
    };
    const result = (await host.list(request, extra)) as ListToolsResult;
    for (const tool of result.tools) names.add(tool.name);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return names;
}

async function callTool<TRight extends string>(
  { gatehouse, host, resolve, traced }: Mount<TRight>,
  request: CallToolRequest,
  extra: V1Extra,
): Promise<CallToolResult> {
  return traced(undefined, async () => {
    const connection = await resolve(extra);
    const { name } = request.params;
    // Gatehouse's own visible tools first: the host's tools are listed only for a name Gatehouse does not show
    if (host.call && !(await gatehouse.listTools(connection)).some((tool) => tool.name === name)) {
      if ((await hostToolNames(host, extra)).has(name))
        return (await host.call(request, extra)) as CallToolResult;
    }
    if (request.params.task) {
      throw new V1RpcError(ErrorCode.InvalidParams, 'Gatehouse tools do not run as tasks.');
    }
    const span =
      gatehouse.telemetry &&
      startRequest(
        gatehouse.telemetry,
        v1Facts('tools/call', request.params._meta, extra, gatehouse.isTool?.(name) ? name : '(unknown)'),
      );
    const answer = await traced(span, () =>
      gatehouse.answer(connection, name, request.params.arguments, {
        requestId: extra.requestId,
        signal: extra.signal,
        span,
      }),
    );
    return answer.result as unknown as CallToolResult;
  });
}

/** A request's telemetry facts as an SDK v1 handler sees them (HTTP transports give `requestInfo`). */
function v1Facts(
  method: RequestFacts['method'],
  meta: Record<string, unknown> | undefined,
  extra: V1Extra,
  tool?: string,
): RequestFacts {
  const { traceparent, tracestate } = meta ?? {};
  return {
    method,
    tool,
    requestId: extra.requestId,
    transport: extra.requestInfo ? 'http' : 'stdio',
    traceparent: typeof traceparent === 'string' ? traceparent : undefined,
    tracestate: typeof tracestate === 'string' ? tracestate : undefined,
  };
}
