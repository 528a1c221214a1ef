/**
 * The notes product on Express 5: the MCP endpoint and the console beside
 * the product's own JSON routes. Quoted in docs/mounting.md.
 */
import { createNodeListener, toNodeListener } from '@gatehousejs/core/node';
import express, { type Express } from 'express';
import type { NotesProduct } from './notes.js';

/** The Express app; the caller listens (`app.listen(port)`). */
export function expressApp(notes: NotesProduct): Express {
  // #region express
  const app = express();
  app.disable('x-powered-by');

  // The MCP endpoint comes first, before any body parser: Gatehouse reads and limits the body itself.
  const mcp = express.Router({ strict: true }); // exactly /mcp, as listen serves it (not /mcp/)
  mcp.all('/mcp', createNodeListener(notes.server, notes.mcp));
  app.use(mcp);

  // The console under its basePath, '/console'. Express strips the prefix from req.url;
  // the listener reads req.originalUrl, so the console sees the whole path.
  app.use('/console', toNodeListener(notes.console.fetch, { onError: notes.server.onError }));

  // The product's own routes and their parser come after.
  app.use(express.json());
  app.post('/api/echo', (req, res) => {
    res.json({ received: req.body });
  });
  // #endregion express
  return app;
}
