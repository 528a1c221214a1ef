/**
 * The notes product on Hono (with `@hono/node-server` on Node): the MCP
 * endpoint and the console beside the product's own JSON routes. Quoted in
 * docs/mounting.md.
 */
import { createHttpHandler } from '@gatehousejs/core/http';
import { Hono } from 'hono';
import type { NotesProduct } from './notes.js';

/** The Hono app; serve it with `serve({ fetch: app.fetch, port })` of `@hono/node-server`, or any runtime. */
export function honoApp(notes: NotesProduct): Hono {
  // #region hono
  const app = new Hono();
  const mcp = createHttpHandler(notes.server, notes.mcp);

  // The raw Request, its body unread: no c.req.json() or validator ahead of it.
  app.all('/mcp', (c) => mcp.fetch(c.req.raw));

  // The console keeps its basePath, '/console': mount() would strip the prefix by default.
  app.mount('/console', notes.console.fetch, { replaceRequest: false });

  // The product's own routes.
  app.post('/api/echo', async (c) => c.json({ received: await c.req.json() }));
  // #endregion hono
  return app;
}
