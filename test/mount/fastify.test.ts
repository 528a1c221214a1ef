/**
 * The notes product mounted on Fastify 5 (examples/fastify.ts) on a real
 * port, against `listen` serving the same server.
 */
import { ConfigurationError } from '@gatehousejs/core';
import { createNodeListener } from '@gatehousejs/core/node';
import { describe, expect, it } from 'vitest';
import { fastifyApp } from './examples/fastify.js';
import { callBehindParser, echoed, mountedLikeListen } from './suite.js';

describe('fastifyApp (Fastify 5)', () => {
  const state = mountedLikeListen(async (notes) => {
    const app = await fastifyApp(notes);
    // misconfigured on purpose: a route of the root scope, where Fastify's JSON parser reads the body
    const parsed = createNodeListener(notes.server, notes.mcp);
    app.post('/parsed/mcp', (request, reply) => {
      reply.hijack();
      return parsed(request.raw, reply.raw);
    });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      origin,
      close: async () => {
        app.server.closeAllConnections(); // the SDK client's and the browser's kept-alive connections
        await app.close();
      },
    };
  });

  it('keeps its own routes on Fastify’s parsers', async () => {
    expect(await echoed(state)).toEqual({ received: { hello: 'world' } });
  });

  it('answers a body Fastify’s parser read ahead of the listener with a bare 500 and tells onError the fix', async () => {
    const answer = await callBehindParser(state);
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text)).toMatchObject({ id: null, error: { code: -32603 } });
    expect(state.errors).toHaveLength(1);
    expect(ConfigurationError.is(state.errors[0])).toBe(true);
    expect(state.errors[0]?.message).toMatch(/Fastify content-type parser/);
  });
});
