import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import type { MountOptions } from '@gatehousejs/core/sdk-v1';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import * as after from './v1After.js';
import * as before from './v1Before.js';

const source = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

/** A v1 client connected in process to a server built by `create`. */
async function connect(create: (mount?: MountOptions) => McpServer, mount?: MountOptions) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await create(mount).connect(serverSide);
  const client = new Client({ name: 'docs', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** Starts `listener` on loopback and posts one raw `tools/call` to it. */
async function postCall(listener: RequestListener, headers: Record<string, string>, text: string) {
  const http = createHttpServer(listener);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  try {
    const port = typeof address === 'object' && address ? address.port : 0;
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'add_note', arguments: { text } },
      }),
    });
    await response.text();
    return response.status;
  } finally {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
}

describe('migrating from SDK v1', () => {
  it('runs the server before: two hand-written tools, an unknown argument silently dropped', async () => {
    const client = await connect(before.createServer);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['find_notes', 'add_note']);
    const rows = before.db.length;

    await client.callTool({ name: 'add_note', arguments: { text: 'Order parts', workspace_id: 'ws_2' } });

    expect(before.db.slice(rows)).toEqual([{ id: `n${rows + 1}`, workspace: 'ws_1', text: 'Order parts' }]);
    expect(await postCall(before.httpListener, {}, 'no credential needed')).toBe(200);
    expect(before.db.at(-1)?.text).toBe('no credential needed');
  });

  it('runs the server after: add_note from Gatehouse beside the hand-written find_notes', async () => {
    const client = await connect(after.createServer, { credential: { token: 'demo-token' } });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n === 'add_note' || n === 'find_notes')).toEqual(['add_note', 'find_notes']);
    const rows = after.db.length;

    const added = await client.callTool({ name: 'add_note', arguments: { text: 'Order parts' } });
    const refused = await client.callTool({
      name: 'add_note',
      arguments: { text: 'Order parts', workspace_id: 'ws_2' },
    });
    const found = await client.callTool({ name: 'find_notes', arguments: { query: 'Ada' } });

    expect(added.structuredContent).toEqual({
      status: 'ok',
      result: { id: `n${rows + 1}`, text: 'Order parts' },
    });
    expect(refused.structuredContent).toMatchObject({ error: { code: 'unknown_arguments' } });
    expect(after.db.slice(rows)).toEqual([{ id: `n${rows + 1}`, workspace: 'ws_1', text: 'Order parts' }]);
    expect(after.audit.rows.map((r) => [r.channel, r.action, r.tenantId])).toEqual([
      ['mcp', 'add_note', 'ws_1'],
    ]);
    expect(found.content).toEqual([{ type: 'text', text: JSON.stringify([after.db[0]]) }]);
  });

  it('serves the server after over HTTP only behind admission', async () => {
    const rows = after.db.length;
    expect(await postCall(after.httpListener, {}, 'no credential')).toBe(401);
    expect(await postCall(after.httpListener, { authorization: 'Bearer wrong' }, 'wrong credential')).toBe(
      401,
    );
    expect(after.db.length).toBe(rows);
    expect(await postCall(after.httpListener, { authorization: 'Bearer demo-token' }, 'over http')).toBe(200);
    expect(after.db.slice(rows).map((n) => n.text)).toEqual(['over http']);
  });

  it('shows in the guide’s diff blocks exactly the lines the two files differ by', () => {
    const guide = readFileSync(new URL('../migrating-from-sdk-v1.md', import.meta.url), 'utf8');
    const blocks = [...guide.matchAll(/```diff\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    expect(blocks.length).toBeGreaterThan(3);
    const lines = (name: string) => new Set(source(name).split('\n'));
    const [old, current] = [lines('./v1Before.ts'), lines('./v1After.ts')];
    const removed = new Set<string>();
    const added = new Set<string>();
    for (const line of blocks.flatMap((b) => b.split('\n').slice(0, -1))) {
      const [mark, text] = [line.slice(0, 1), line.slice(1)];
      if (mark === '-') removed.add(text);
      else if (mark === '+') added.add(text);
      else expect(old.has(text) && current.has(text), `context line ${JSON.stringify(line)}`).toBe(true);
    }
    for (const text of removed) expect(old.has(text), `removed ${JSON.stringify(text)}`).toBe(true);
    for (const text of added) expect(current.has(text), `added ${JSON.stringify(text)}`).toBe(true);
    const differing = (from: Set<string>, to: Set<string>) => [...from].filter((l) => l.trim() && !to.has(l));
    expect(differing(old, current).filter((l) => !removed.has(l))).toEqual([]);
    expect(differing(current, old).filter((l) => !added.has(l))).toEqual([]);
  });
});
