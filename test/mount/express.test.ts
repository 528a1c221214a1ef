/**
 * The notes product mounted on Express 5 (examples/express.ts) on a real
 * port, against `listen` serving the same server.
 */
import type { Server } from 'node:http';
import { ConfigurationError } from '@gatehousejs/core';
import { createNodeListener } from '@gatehousejs/core/node';
import { describe, expect, it } from 'vitest';
import { expressApp } from './examples/express.js';
import { callBehindParser, echoed, mountedLikeListen, mountedOn } from './suite.js';

describe('expressApp (Express 5)', () => {
  const state = mountedLikeListen(async (notes) => {
    const app = expressApp(notes);
    // misconfigured on purpose: this route comes after the app's express.json()
    app.all('/parsed/mcp', createNodeListener(notes.server, notes.mcp));
    const http = await new Promise<Server>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    return mountedOn(http);
  });

  it('keeps its own routes behind express.json()', async () => {
    expect(await echoed(state)).toEqual({ received: { hello: 'world' } });
  });

  it('answers a body express.json() read ahead of the route with a bare 500 and tells onError the fix', async () => {
    const answer = await callBehindParser(state);
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error' },
    });
    expect(state.errors).toHaveLength(1);
    expect(ConfigurationError.is(state.errors[0])).toBe(true);
    expect(state.errors[0]?.message).toMatch(/body was read before the handler.*express\.json\(\)/);
  });
});
