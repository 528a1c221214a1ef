/** The MCP endpoint as a Next.js route handler, `app/mcp/route.ts`. Quoted in docs/mounting.md. */
import { createHttpHandler } from '@gatehousejs/core/http';
import { notes } from '../../notes.js';

// #region next-mcp
const mcp = createHttpHandler(notes.server, notes.mcp);

/** POST carries MCP messages; GET and DELETE are answered 405 (stateless serving). */
export function POST(request: Request): Promise<Response> {
  return mcp.fetch(request); // Next reads no body of a route handler: Gatehouse reads and limits it
}
export const GET = POST;
export const DELETE = POST;
// #endregion next-mcp
