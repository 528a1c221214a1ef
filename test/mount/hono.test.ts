/**
 * The notes product mounted on Hono (examples/hono.ts), served by
 * `@hono/node-server` on a real port, against `listen` serving the same server.
 */
import type { Server } from 'node:http';
import { ConfigurationError } from '@gatehousejs/core';
import { createHttpHandler } from '@gatehousejs/core/http';
import { serve } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { honoApp } from './examples/hono.js';
import { callBehindParser, echoed, mountedLikeListen, mountedOn } from './suite.js';

describe('honoApp (Hono on @hono/node-server)', () => {
  const state = mountedLikeListen(async (notes) => {
    const app = honoApp(notes);
    // misconfigured on purpose: a middleware reads the JSON body before the handler
    const parsed = createHttpHandler(notes.server, notes.mcp);
    app.post(
      '/parsed/mcp',
      async (c, next) => {
        await c.req.json();
        await next();
      },
      (c) => parsed.fetch(c.req.raw),
    );
    const http = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
        resolve(started as Server),
      );
    });
    return mountedOn(http);
  });

  it('keeps its own routes on c.req.json()', async () => {
    expect(await echoed(state)).toEqual({ received: { hello: 'world' } });
  });

  it('answers a body c.req.json() read ahead of the handler with a bare 500 and tells onError the fix', async () => {
    const answer = await callBehindParser(state);
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text)).toMatchObject({ id: null, error: { code: -32603 } });
    expect(state.errors).toHaveLength(1);
    expect(ConfigurationError.is(state.errors[0])).toBe(true);
    expect(state.errors[0]?.message).toMatch(/c\.req\.json\(\)/);
  });
});
