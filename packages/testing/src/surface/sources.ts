import type { Connection, GatehouseServer } from '@gatehousejs/core';
import { type ClientOpener, connectClient } from '../contract/client.js';
import type { HostEndpoint } from '../contract/fixture.js';
import type { McpEra } from '../types.js';
import { type SurfaceOptions, surfaceOf, type ToolSurface } from './snapshot.js';

/** Where {@link servedSurface} lists tools, and with which credential per toolset. */
export interface ServedSurfaceOptions extends SurfaceOptions {
  /** The MCP endpoint: its URL, or a contract-kit endpoint (HTTP or stdio). */
  readonly endpoint: string | URL | HostEndpoint;
  /** One token per toolset, e.g. `{ full, compact }`; each lists what that grant is shown. */
  readonly tokens: Readonly<Record<string, string>>;
  /** The protocol era to speak; `2026-07-28` by default. */
  readonly era?: McpEra;
  /** Lists through this client instead of the kit's raw one (e.g. an SDK client). */
  readonly client?: ClientOpener;
}

const endpointOf = (endpoint: ServedSurfaceOptions['endpoint']): HostEndpoint =>
  typeof endpoint === 'string' || endpoint instanceof URL ? { transport: 'http', url: endpoint } : endpoint;

/** One served `tools/list` for `token`; throws with the status when the server refuses it. */
async function servedListing(options: ServedSurfaceOptions, toolset: string, token: string) {
  const target = { endpoint: endpointOf(options.endpoint), era: options.era ?? '2026-07-28' };
  const client = await connectClient(options.client, target, token);
  try {
    const reply = await client.list();
    const tools = reply.result?.tools;
    if (reply.status !== 200 || !Array.isArray(tools)) {
      const why = reply.failure ?? reply.rpcError?.message ?? 'no tool list in the reply';
      throw new Error(
        `surface: tools/list for toolset "${toolset}" failed (status ${reply.status}, ${why}).`,
      );
    }
    if (reply.result?.nextCursor !== undefined) {
      throw new Error(`surface: tools/list for toolset "${toolset}" is paginated; lock each page's server.`);
    }
    return tools as unknown[];
  } finally {
    await client.close();
  }
}

/**
 * The surface a served endpoint shows: one `tools/list` per toolset, each
 * with that toolset's token, through the kit's raw client (which ignores
 * every hint). Throws when a listing is refused or malformed: a surface
 * that cannot be read cannot be approved.
 */
export async function servedSurface(options: ServedSurfaceOptions): Promise<ToolSurface> {
  const listings: Record<string, unknown[]> = {};
  for (const [toolset, token] of Object.entries(options.tokens)) {
    listings[toolset] = await servedListing(options, toolset, token);
  }
  return surfaceOf(listings, options);
}

/** A toolset's caller in-process: a token the server's authenticator accepts, or a connection. */
export type SurfaceCaller<TRight extends string> = string | Connection<TRight>;

async function connectionOf<TRight extends string>(
  server: GatehouseServer<TRight>,
  toolset: string,
  caller: SurfaceCaller<TRight>,
): Promise<Connection<TRight>> {
  if (typeof caller !== 'string') return caller;
  const decision = await server.authenticate({ token: caller });
  if (!decision.ok) {
    throw new Error(`surface: the token for toolset "${toolset}" was refused (${decision.status}).`);
  }
  return decision.connection;
}

/**
 * The surface a `GatehouseServer` lists in-process, one listing per toolset
 * (`server.listTools` for each caller's connection): the same tools, in the
 * same shape, as its served `tools/list`, without a transport. Throws when
 * a token is refused.
 */
export async function serverSurface<TRight extends string>(
  server: GatehouseServer<TRight>,
  callers: Readonly<Record<string, SurfaceCaller<TRight>>>,
  options: SurfaceOptions = {},
): Promise<ToolSurface> {
  const listings: Record<string, unknown[]> = {};
  for (const [toolset, caller] of Object.entries(callers)) {
    const listed = await server.listTools(await connectionOf(server, toolset, caller));
    // What the wire carries: JSON drops undefined members, as a served listing does.
    listings[toolset] = JSON.parse(JSON.stringify(listed)) as unknown[];
  }
  return surfaceOf(listings, options);
}
