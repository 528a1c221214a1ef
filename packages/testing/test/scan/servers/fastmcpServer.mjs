/**
 * The orders tools on FastMCP from npm, as its README shows them (zod
 * parameters, `execute`), over HTTP streaming on the port given as the first
 * argument. Prints its URL on the first line of stdout once it listens.
 */
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { cancelOrder, DESCRIPTIONS, findOrder } from './orders.mjs';

const port = Number(process.argv[2]);
const server = new FastMCP({ name: 'bare-fastmcp', version: '1.0.0' });
server.addTool({
  name: 'get_order',
  description: DESCRIPTIONS.get_order,
  parameters: z.object({ order_id: z.string() }),
  annotations: { readOnlyHint: true },
  execute: async ({ order_id }) => JSON.stringify(findOrder(order_id)),
});
server.addTool({
  name: 'cancel_order',
  description: DESCRIPTIONS.cancel_order,
  parameters: z.object({ order_id: z.string() }),
  annotations: { destructiveHint: true },
  execute: async ({ order_id }) => cancelOrder(order_id),
});
await server.start({ transportType: 'httpStream', httpStream: { port, host: '127.0.0.1' } });
process.stdout.write(`http://127.0.0.1:${port}/mcp\n`);
