/**
 * The minimal notes host's Gatehouse server hosted on an SDK v1 low-level
 * `Server` (`mountGatehouse`), behind the v1 admission middleware on node:http
 * (127.0.0.1, port 0), over the v1 Streamable HTTP transport: stateless (a
 * fresh server and transport per request) or stateful (`Mcp-Session-Id`,
 * one server and transport per session).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { GatehouseServer } from '@gatehousejs/core';
import { type AdmittedRequest, createAdmissionMiddleware, mountGatehouse } from '@gatehousejs/core/sdk-v1';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Right } from '../host/domain.js';
import type { Flaws } from '../host/flaws.js';
import type { ServedNotes, ServeNotes } from '../host/notesHost.js';

export type V1Mode = 'stateless' | 'stateful';

/** A v1 low-level server with nothing of its own but Gatehouse's tools; `handshakes` gets each client's name. */
function v1Server(gatehouse: GatehouseServer<Right>, handshakes: string[]): Server {
  const server = new Server({ name: gatehouse.name, version: gatehouse.version }, { capabilities: {} });
  mountGatehouse(server, gatehouse);
  server.oninitialized = () => void handshakes.push(server.getClientVersion()?.name ?? '');
  return server;
}

/**
 * The {@link ServeNotes} of the notes host on SDK v1 over Streamable HTTP in
 * `mode`; `errors` collects what the server's `onError` hears, `handshakes` the
 * name each client gave when it initialized.
 */
export function serveOnV1(mode: V1Mode, errors: Error[] = [], handshakes: string[] = []): ServeNotes {
  return async (given: GatehouseServer<Right>, flaws: Flaws): Promise<ServedNotes> => {
    // the served copy of the server reports to `errors`: transports report to their server's onError
    const gatehouse: GatehouseServer<Right> = { ...given, onError: (error) => void errors.push(error) };
    const gate = createAdmissionMiddleware(gatehouse, {
      ...(flaws.trustsForeignOrigin ? { allowedOrigins: ['localhost', '127.0.0.1', 'evil.example'] } : {}),
    });
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    const open = new Set<Server>();

    const serve = async (req: AdmittedRequest, res: ServerResponse): Promise<void> => {
      const id = req.headers['mcp-session-id'];
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (known) return known.handleRequest(req, res);
      if (id !== undefined) return void res.writeHead(404).end();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: mode === 'stateful' ? randomUUID : undefined,
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        onsessionclosed: (sid) => void sessions.delete(sid),
      });
      const server = v1Server(gatehouse, handshakes);
      open.add(server);
      if (mode === 'stateless') {
        res.on('close', () => {
          open.delete(server);
          void server.close();
        });
      }
      await server.connect(transport);
      await transport.handleRequest(req, res);
    };

    const http = createServer((req: IncomingMessage, res) => {
      const gated: AdmittedRequest = req;
      if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') {
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      }
      gate(gated, res, () => serve(gated, res)).catch((error: unknown) => {
        errors.push(error instanceof Error ? error : new Error(String(error)));
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    const address = http.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    let closing: Promise<void> | undefined;
    return {
      url: new URL(`http://127.0.0.1:${port}/mcp`),
      close: () =>
        (closing ??= (async () => {
          await Promise.all([...open].map((server) => server.close()));
          sessions.clear();
          http.closeAllConnections();
          await new Promise<void>((resolve) => http.close(() => resolve()));
        })()),
    };
  };
}
