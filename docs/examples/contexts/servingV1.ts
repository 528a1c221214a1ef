// What the SDK v1 block of docs/serving.md uses without declaring it
// (scripts/checkDocsCode.mjs imports these names into the block).
import type { GatehouseServer } from '@gatehousejs/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** The existing SDK v1 server. */
export declare const server: McpServer;
/** The Gatehouse server whose tools it mounts: `gh.createServer({ … })`. */
export declare const gatehouse: GatehouseServer<'notes.read'>;
