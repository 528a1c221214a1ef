// The three HTTP contenders of the throughput benchmark. Each serves one `echo`
// tool on 127.0.0.1 and is started in this (the server) process.
import { createServer as createHttpServer } from 'node:http';
import { createSwitches } from '@gatehousejs/access';
import { createGatehouse, MemoryAuditStore, MemorySwitchStore } from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { standardGuards } from '@gatehousejs/guards';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, Server } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** The bearer token the Gatehouse contender accepts; the load generator sends it to everyone. */
export const BENCH_TOKEN = 'gh_bench_0123456789abcdef';

const INFO = { name: 'bench-echo', version: '1.0.0' };
const ECHO_DESCRIPTION = 'Returns the text it is given.';
const ECHO_INPUT_SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
};

/** node:http on loopback, port picked by the OS. */
export async function serveNode(listener) {
  const http = createHttpServer(listener);
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', resolve);
  });
  const { port } = http.address();
  const close = () =>
    new Promise((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}/mcp`, close };
}

/** (a) Bare low-level SDK `Server` with hand-written tools/list and tools/call handlers. */
export function lowLevelServer() {
  const server = new Server(INFO, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [{ name: 'echo', description: ECHO_DESCRIPTION, inputSchema: ECHO_INPUT_SCHEMA }],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    if (request.params.name !== 'echo') {
      return { content: [{ type: 'text', text: 'Unknown tool' }], isError: true };
    }
    const text = String(request.params.arguments?.text ?? '');
    return { content: [{ type: 'text', text }] };
  });
  return server;
}

export async function startLowLevel() {
  const handler = createMcpHandler(() => lowLevelServer(), { legacy: 'stateless' });
  return serveNode(toNodeHandler(handler));
}

// Built once, outside the per-request factory, as Gatehouse builds its schemas once
// per definition: the baseline does not pay for zod schema construction per request.
const ECHO_ZOD_INPUT = z.object({ text: z.string() });

/** A bare `McpServer` registering `echo` the documented way (`registerTool` + zod). */
export function mcpServer() {
  const server = new McpServer(INFO);
  server.registerTool(
    'echo',
    { description: ECHO_DESCRIPTION, inputSchema: ECHO_ZOD_INPUT },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

/** (b) Bare `McpServer` + zod. */
export async function startMcpServer() {
  const handler = createMcpHandler(() => mcpServer(), { legacy: 'stateless' });
  return serveNode(toNodeHandler(handler));
}

/** A Connection as a host authenticator would return it. */
export function benchConnection(rights) {
  return {
    connectionId: 'conn_bench',
    tenantId: 'tenant_bench',
    creatorId: 'person_bench',
    clientName: 'bench-client',
    channel: 'mcp',
    rights: new Set(rights),
  };
}

/** Accepts exactly {@link BENCH_TOKEN}; builds a fresh connection per request, as a real host would. */
export function benchAuthenticate(rights) {
  return async ({ token }) =>
    token === BENCH_TOKEN
      ? { ok: true, connection: benchConnection(rights) }
      : { ok: false, status: 401, reason: 'Unknown token.' };
}

/** Kill switches on memory stores, read on every request as a product's would be. */
export function benchSwitches() {
  return createSwitches({ store: new MemorySwitchStore(), audit: new MemoryAuditStore() });
}

/** The Gatehouse server with the same echo tool (a read: no replay record). */
export function gatehouseEchoServer(onError) {
  const gh = createGatehouse({ rights: ['echo.use'], services: () => ({}) });
  const echo = gh.defineTool({
    name: 'echo',
    description: ECHO_DESCRIPTION,
    effect: 'read',
    requires: ['echo.use'],
    input: z.object({ text: z.string() }),
    presenter: {
      outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      present: (text) => ({ text }),
    },
    run: ({ input }) => input.text,
  });
  return gh.createServer({
    ...INFO,
    tools: [echo],
    authenticate: benchAuthenticate(['echo.use']),
    // a read-only server: tenant, rights, both kill switches and output cleaning, read per request
    guards: standardGuards({}, { switches: benchSwitches() }),
    ...(onError ? { onError } : {}),
  });
}

/** (c) Gatehouse through core's `listen()`. */
export async function startGatehouse() {
  const listening = await listen(gatehouseEchoServer(), { host: '127.0.0.1', port: 0 });
  return { url: listening.url.href, close: () => listening.close() };
}

/** The contenders in the order they are measured within each round. */
export const CONTENDERS = [
  { id: 'lowLevel', label: 'SDK low-level Server', start: startLowLevel },
  { id: 'mcpServer', label: 'SDK McpServer + zod', start: startMcpServer },
  { id: 'gatehouse', label: 'Gatehouse listen()', start: startGatehouse },
];
