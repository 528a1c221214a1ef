/**
 * The notes product on Fastify 5: the MCP endpoint and the console in a
 * scope without body parsers, beside the product's own JSON routes. Quoted
 * in docs/mounting.md.
 */
import { createNodeListener, type NodeListener, toNodeListener } from '@gatehousejs/core/node';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { NotesProduct } from './notes.js';

/** The Fastify app, its routes registered; the caller listens (`app.listen({ port })`). */
export async function fastifyApp(notes: NotesProduct): Promise<FastifyInstance> {
  // #region fastify
  const app = Fastify();
  const mcp = createNodeListener(notes.server, notes.mcp);
  const console = toNodeListener(notes.console.fetch, { onError: notes.server.onError });

  /** A route that hands Fastify's node request and response to a listener. */
  const handOver = (listener: NodeListener) => (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack(); // the listener writes the response; Fastify sends nothing
    return listener(request.raw, reply.raw);
  };

  // A scope of its own, where no content-type parser reads the body: Gatehouse reads and limits it.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _body, done) => done(null)); // leaves the stream unread
    scope.all('/mcp', handOver(mcp));
    scope.all('/console', handOver(console)); // the console's basePath is '/console'
    scope.all('/console/*', handOver(console));
  });

  // The product's own routes keep Fastify's parsers.
  app.post('/api/echo', async (request) => ({ received: request.body }));
  // #endregion fastify
  return app;
}
