// Section 2, v1 part: the SDK v1 adoption path. Two hosts on SDK v1's low-level
// `Server` over a stateless `StreamableHTTPServerTransport` (one server and
// transport per request) on node:http: bare, with hand-written echo handlers,
// and the same host with the echo tool served by Gatehouse (`mountGatehouse`)
// behind the admission middleware (`createAdmissionMiddleware`). v1 speaks protocol
// versions up to 2025-11-25 only, so this section runs in that era.
import { createAdmissionMiddleware, mountGatehouse } from '@gatehousejs/core/sdk-v1';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { gatehouseEchoServer, serveNode } from './contenders.mjs';

const INFO = { name: 'bench-echo', version: '1.0.0' };
const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns the text it is given.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
};

/** (a) A bare v1 low-level `Server` with hand-written tools/list and tools/call handlers. */
function bareV1Server() {
  const server = new Server(INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== 'echo') {
      return { content: [{ type: 'text', text: 'Unknown tool' }], isError: true };
    }
    const text = String(request.params.arguments?.text ?? '');
    return { content: [{ type: 'text', text }] };
  });
  return server;
}

/** (b) The same v1 host with its echo tool served by Gatehouse. */
function gatehouseV1Server(gatehouse) {
  const server = new Server(INFO, { capabilities: {} });
  mountGatehouse(server, gatehouse);
  return server;
}

/** Serves one request on a fresh server and stateless transport, closed when the response is. */
async function serveStateless(newServer, req, res) {
  const server = newServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void server.close());
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** node:http on loopback (the shared helper); `listener` may return a promise, whose failure is reported. */
function serveReporting(listener, onerror) {
  return serveNode((req, res) => {
    Promise.resolve(listener(req, res)).catch((error) => {
      onerror(error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
}

/** Unexpected server-side errors; the load generator sees the failed responses, this keeps the first few. */
const reported = [];
const onerror = (error) => {
  if (reported.length < 5) reported.push(String(error?.message ?? error));
};
export const v1ServerErrors = () => [...reported];

export async function startBareV1() {
  return serveReporting((req, res) => serveStateless(bareV1Server, req, res), onerror);
}

export async function startGatehouseV1() {
  const gatehouse = gatehouseEchoServer(onerror); // the server's one error hook hears its transports
  const gate = createAdmissionMiddleware(gatehouse);
  return serveReporting(
    (req, res) => gate(req, res, () => serveStateless(() => gatehouseV1Server(gatehouse), req, res)),
    onerror,
  );
}

/** The v1 contenders in the order they are measured within each round. */
export const V1_CONTENDERS = [
  { id: 'bareV1', label: 'SDK v1 low-level Server', start: startBareV1 },
  { id: 'gatehouseV1', label: 'Gatehouse on SDK v1', start: startGatehouseV1 },
];
