/**
 * A bare SDK v2 server with no guards, as many teams write one: the
 * low-level `Server` (hand-written schemas, no validation) or `McpServer` with
 * zod. Usage: node sdkServer.mjs low-level|mcp-server http|stdio. Over HTTP it
 * prints its URL on the first line of stdout.
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { cancelOrder, DESCRIPTIONS, findOrder, trackOrder } from './orders.mjs';

const [kind, transport] = process.argv.slice(2);
const INFO = { name: `bare-${kind}`, version: '1.0.0' };
const ORDER_ID = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] };

function lowLevel() {
  const server = new Server(INFO, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      {
        name: 'get_order',
        description: DESCRIPTIONS.get_order,
        inputSchema: ORDER_ID,
        annotations: { readOnlyHint: true },
      },
      {
        name: 'cancel_order',
        description: DESCRIPTIONS.cancel_order,
        inputSchema: ORDER_ID,
        annotations: { destructiveHint: true },
      },
      {
        name: 'track_order',
        description: DESCRIPTIONS.track_order,
        inputSchema: ORDER_ID,
        annotations: { readOnlyHint: true },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const id = request.params.arguments?.order_id;
    if (request.params.name === 'get_order')
      return { content: [{ type: 'text', text: JSON.stringify(findOrder(id)) }] };
    if (request.params.name === 'cancel_order') return { content: [{ type: 'text', text: cancelOrder(id) }] };
    if (request.params.name === 'track_order')
      return { content: [{ type: 'text', text: JSON.stringify(trackOrder(id)) }] };
    throw new Error(`Unknown tool ${request.params.name}`);
  });
  return server;
}

const ORDER = z.object({ id: z.string(), status: z.string(), total: z.string() });

function mcpServer() {
  const server = new McpServer(INFO);
  server.registerTool(
    'get_order',
    {
      description: DESCRIPTIONS.get_order,
      inputSchema: z.object({ order_id: z.string() }),
      outputSchema: ORDER,
      annotations: { readOnlyHint: true },
    },
    async ({ order_id }) => ({ content: [], structuredContent: findOrder(order_id) }),
  );
  server.registerTool(
    'cancel_order',
    {
      description: DESCRIPTIONS.cancel_order,
      inputSchema: z.object({ order_id: z.string() }),
      annotations: { destructiveHint: true },
    },
    async ({ order_id }) => ({ content: [{ type: 'text', text: cancelOrder(order_id) }] }),
  );
  return server;
}

const factory = kind === 'low-level' ? lowLevel : mcpServer;
if (transport === 'stdio') {
  serveStdio(factory);
} else {
  const http = createServer(toNodeHandler(createMcpHandler(() => factory())));
  http.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`));
}
